"""A pytest project as a user of the toolscored package writes it
(tests/test_dist_wheel.sh): an agent's tool calls under
toolscore_snapshot, four tests so that two xdist workers share them."""

import os

import pytest


def agent(city: str) -> list:
    """The agent under test; AGENT_DRIFT=1 makes it drift on one city."""
    if os.environ.get("AGENT_DRIFT") and city == "LA":
        city = "SFO"
    return [{"tool": "search_flights", "args": {"destination": city, "passengers": 2}},
            {"tool": "book", "args": {"seat": "window"}}]


@pytest.mark.parametrize("city", ["NYC", "LA", "BOS", "SEA"])
def test_books_a_flight(toolscore_snapshot, city):
    toolscore_snapshot(agent(city))
