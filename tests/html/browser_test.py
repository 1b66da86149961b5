"""The HTML report in a real browser (headless Chromium, tests/html/cdp.py),
driven as a person would: run by tests/test_html.sh on a page of a run with
every outcome, a flaky name, a name two tests claimed, an orphan, and a
name and an argument holding <script> / <img onerror> payloads.

    browser_test.py PAGE.html REPORT.json OUTDIR

REPORT.json is the JSON report the page was made from (what to expect).
Asserts: the page renders with no console error and asks the network for
nothing; the payloads render as text and run nothing; the filters (keys and
clicks) and the search change what is shown; j/k move between checks and
Enter opens one (drift report, expected | actual with the differing paths
marked, the exact `tsctl accept NAME`); readable at 390 px (nothing wider
than the screen), light and dark. Screenshots at 1280 and 390 px (and dark)
are written to OUTDIR for a person to look at; report-1280-view.png (the
first screen, one failure open) is the one docs/ci.md shows (make
html-screenshot copies it to docs/html-report.png).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

page_path, report_path, outdir = sys.argv[1:4]
report = json.load(open(report_path))
checks = report["checks"]
url = "file://" + os.path.abspath(page_path)
os.makedirs(outdir, exist_ok=True)
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)


def count(outcomes):
    return sum(1 for c in checks if c["outcome"] in outcomes)


def shown(p):
    return p.eval("document.querySelectorAll('#list > li').length")


def names_shown(p):
    return p.eval("Array.from(document.querySelectorAll('#list > li .name'))"
                  ".map(function(e){return e.firstChild.textContent})")


PWNED = "window.__pwned === undefined && !document.querySelector('img') && document.scripts.length === 2"

with Browser() as b:
    p = b.page(1280, 900)
    p.goto(url)
    expect(p.eval(PWNED), "a payload ran or became markup on load")

    # The default filter: the failures.
    failed = count({"FAILED"})
    expect(failed >= 2, "the test report needs two FAILED checks")
    expect(shown(p) == failed, "first view: %d shown, %d failed" % (shown(p), failed))
    expect(p.eval("document.querySelector('.chip[aria-pressed=true]').dataset.filter") == "failed",
           "the failed filter is not pressed")
    hostile = [c["name"] for c in checks if "<script>" in c["name"] and c["outcome"] == "FAILED"]
    expect(len(hostile) == 1, "the report has one FAILED check named with <script>")
    expect(hostile and hostile[0] in names_shown(p), "the <script> name is not shown as text")

    # Filters by key and by click, each one's count.
    for key, outcomes in (("a", None), ("s", {"PASSED"}), ("c", {"CREATED"}),
                          ("e", {"ERROR_MISSING_IN_CI", "ERROR_PENDING_IN_CI"}),
                          ("p", {"PENDING"}), ("u", {"UPDATED"}), ("f", {"FAILED"})):
        p.key(key)
        want = len(checks) if outcomes is None else count(outcomes)
        expect(shown(p) == want, "key %s: %d shown, want %d" % (key, shown(p), want))
    flaky_names = set(x["name"] for x in report.get("flaky") or []) or \
        set(r["name"] for r in report["repeats"] if r["distinct"] > 1 or (r["pass^k"] is False and r["pass@k"] is True))
    expect(flaky_names, "the test report needs a flaky name")
    p.click(".chip-flaky")
    want = sum(1 for c in checks if c["name"] in flaky_names)
    expect(shown(p) == want, "flaky chip: %d shown, want %d" % (shown(p), want))
    expect(p.eval("document.querySelector('#flaky').hidden") is False, "no flaky section")
    flaky_text = p.eval("document.querySelector('#flaky').textContent")
    expect("calls[0].args.q" in flaky_text, "the flaky section does not name the varying path")
    p.click(".chip-all")
    expect(shown(p) == len(checks), "all chip")

    # The search: '/' focuses it, typing filters by name, Escape leaves it.
    p.key("/")
    expect(p.eval("document.activeElement.id") == "search", "/ does not focus the search")
    p.type("orphan-not-here-")
    p.wait("document.querySelectorAll('#list > li').length === 0")
    expect(p.eval("!document.getElementById('empty').hidden"), "no 'no check matches' note")
    p.eval("(function(){var s=document.getElementById('search'); s.value='';"
           "s.dispatchEvent(new Event('input'));})()")
    p.type("SCRIPT>")  # case-insensitive, over names
    want = sum(1 for c in checks if "script>" in c["name"].lower() or "script>" in (c["test"] or "").lower())
    p.wait("document.querySelectorAll('#list > li').length === %d" % want)
    p.key("Escape")
    expect(p.eval("document.activeElement.id") != "search", "Escape does not leave the search")
    p.eval("(function(){var s=document.getElementById('search'); s.value='';"
           "s.dispatchEvent(new Event('input'));})()")
    p.wait("document.querySelectorAll('#list > li').length === %d" % len(checks))

    # Keyboard navigation among the failures.
    p.key("f")
    p.key("j")
    expect(p.eval("document.querySelector('#list > li.sel').dataset.k") == "0", "j: not on the first")
    p.key("j")
    expect(p.eval("document.querySelector('#list > li.sel').dataset.k") == "1", "j: not on the second")
    p.key("ArrowUp")
    expect(p.eval("document.querySelector('#list > li.sel').dataset.k") == "0", "ArrowUp: not back")
    p.key("ArrowDown")
    p.key("k")
    sel_name = p.eval("document.querySelector('#list > li.sel .name').firstChild.textContent")
    p.key("Enter")
    expect(p.eval("!!document.querySelector('#list > li.sel .details')"), "Enter does not open")
    details = p.eval("document.querySelector('#list > li.sel .details').textContent")
    check = [c for c in checks if c["name"] == sel_name and c["outcome"] == "FAILED"][0]
    expect(check["report"].splitlines()[0] in details, "the drift report is not in the details")
    cmd = p.eval("document.querySelector('#list > li.sel .cmd').textContent")
    # the command pasted into a shell names exactly the check's snapshot
    expect(cmd.startswith("tsctl accept "), "accept command %r" % cmd)
    echoed = subprocess.run(["bash", "-c", "printf %s " + cmd[len("tsctl accept "):]],
                            capture_output=True, text=True, check=True).stdout
    expect(echoed == sel_name, "accept command %r names %r, not %r" % (cmd, echoed, sel_name))
    expect(p.eval("document.querySelectorAll('#list > li.sel .ln.diff').length") > 0,
           "no differing line marked")
    paths = p.eval("Array.from(document.querySelectorAll('#list > li.sel .paths li')).map(function(e){return e.textContent})")
    expect(any(x.startswith("calls[") for x in paths), "no differing path listed: %r" % paths)
    p.eval("window.scrollTo(0, 0)")
    p.screenshot(os.path.join(outdir, "report-1280-view.png"), full=False)
    p.key("Enter")
    expect(not p.eval("!!document.querySelector('#list > li.sel .details')"), "Enter does not close")

    # Open every failure (the hostile argument among them): text, nothing run.
    p.eval("Array.from(document.querySelectorAll('#list > li .row')).forEach(function(r){r.click()})")
    expect(p.eval(PWNED), "a payload ran or became markup in the details")
    sbs = p.eval("Array.from(document.querySelectorAll('.sbs')).map(function(e){return e.textContent}).join('\\n')")
    expect("<img src=x onerror=" in sbs, "the <img onerror> argument is not shown as text")
    expect(p.eval("document.querySelector('.accept .copy') !== null"), "no copy button")
    p.click(".accept .copy")
    p.wait("/cop/.test(document.querySelector('.accept .copy').textContent) && "
           "document.querySelector('.accept .copy').textContent !== 'copy'", timeout=5)

    # Sections: names claimed twice, orphans.
    for dup in report["duplicates"]:
        expect(dup["name"] in p.eval("document.querySelector('#duplicates').textContent"),
               "duplicate %s not listed" % dup["name"])
    orphans_text = p.eval("document.querySelector('#orphans').textContent")
    expect("orphan" in orphans_text, "orphans section")

    p.screenshot(os.path.join(outdir, "report-1280.png"))
    p.color_scheme("dark")
    bg = p.eval("getComputedStyle(document.body).backgroundColor")
    expect(bg != "rgb(255, 255, 255)", "dark: the background stays white")
    p.screenshot(os.path.join(outdir, "report-1280-dark.png"))
    p.color_scheme("light")

    # Phone width: nothing wider than the screen.
    p.resize(390, 844, mobile=True)
    p.wait("document.documentElement.clientWidth === 390")
    wide = p.eval("document.documentElement.scrollWidth")
    expect(wide <= 390, "at 390 px the page is %d px wide" % wide)
    p.screenshot(os.path.join(outdir, "report-390.png"))

    for problem in p.problems():
        expect(False, "browser: " + problem)
    others = [u for u in p.requests() if not u.startswith("file:") and not u.startswith("data:")]
    expect(not others, "the page asked the network for %r" % others)

if failures:
    print("browser_test: %d failure(s)" % len(failures), file=sys.stderr)
    sys.exit(1)
print("browser_test: all checks passed; screenshots in %s" % outdir)
