"""The pytest11 entry point of the toolscored package (docs/pytest.md).

It registers the plugin (toolscored.plugin) when the package's C extension
loads in this Python, and otherwise stops pytest with one line saying why,
instead of a traceback from the plugin's imports.
"""

from __future__ import annotations

from . import _package

if _package.native_problem() is None:
    pytest_plugins = ["toolscored.plugin"]


def pytest_configure(config: object) -> None:
    _package.drop_pytest_pycs()
    problem = _package.native_problem()
    if problem is not None:
        import pytest
        raise pytest.UsageError(problem)
