"""The HTML report in headless Chromium, timed (make bench; docs/internals/bench.md).

    html_bench.py DIR [--repeat R]

DIR holds page.html and static.html from html_bench. For each page, R fresh
loads (median): first render, from the navigation's start to the second
animation frame after the page's script built its first view (the
'toolscore-painted' mark; the static page marks the same frame after its
rows); then R filter changes (median): a click on a filter until the second
frame after it (the page: its "passed" then "failed" chips; the static page:
hiding every row of another outcome). Prints one line:
    mode=html_browser first_ms=... filter_ms=... static_first_ms=... static_filter_ms=...
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "html"))
from cdp import Browser  # noqa: E402

directory = sys.argv[1]
repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
PAINTED = "performance.getEntriesByName('toolscore-painted').length > 0"
FRAME = ("new Promise(function(done){var t0=performance.now(); (%s)();"
         "requestAnimationFrame(function(){requestAnimationFrame(function(){"
         "document.body.offsetHeight; done(performance.now()-t0);});});})")


def measure(page, url, filters):
    first, change = [], []
    for _ in range(repeat):
        page.goto(url, ready=PAINTED)
        first.append(page.eval("performance.getEntriesByName('toolscore-painted')[0].startTime"))
        for f in filters:
            change.append(page.eval(FRAME % f))
    return statistics.median(first), statistics.median(change)


with Browser(timeout=60) as b:
    p = b.page(1280, 900)
    chip = "function(){document.querySelector('.chip-%s').click();}"
    first, change = measure(p, "file://" + os.path.abspath(os.path.join(directory, "page.html")),
                            [chip % "passed", chip % "failed"])
    problems = p.problems()
    sfirst, schange = measure(p, "file://" + os.path.abspath(os.path.join(directory, "static.html")),
                              ["function(){filter('PASSED');}", "function(){filter('FAILED');}"])
if problems:
    print("html_bench: the page had problems: %s" % problems[:3], file=sys.stderr)
    sys.exit(1)
print("mode=html_browser first_ms=%.1f filter_ms=%.1f static_first_ms=%.1f static_filter_ms=%.1f"
      % (first, change, sfirst, schange))
