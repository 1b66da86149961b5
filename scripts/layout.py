#!/usr/bin/python3
"""The layout rules of docs/architecture.md, checked on the sources and the
objects of a build:

  scripts/layout.py [BUILD]        (run at the repository root; BUILD: build/)

1. Arrows point down only: lib/ includes nothing of proto/, daemon/ or
   client/; proto/ only lib/; daemon/ and client/ never each other; the
   daemon's server core (daemon/server/) no method folder of the daemon; the
   client library (client/*.c) nothing of tsctl (client/tsctl/).
2. A folder's internal header (*_internal.h) is included only inside its
   folder; a header named without a folder (#include "x.h") is in the
   including file's folder; each folder has at most one public and one
   internal header.
3. No folder holds more than 20 C files of its own; no product C file is
   longer than 900 lines.
4. No circle between files: file A calls into file B when A's object leaves
   undefined a symbol that B's object defines (nm); no path of such calls
   leads from a file back to itself.

Tests (tests/) and the language shims are not product files: a white-box
test may include a folder's internal header. Prints every violation and
exits 1 when there is one.
"""
import os
import re
import subprocess
import sys

MAX_C_FILES = 20
MAX_LINES = 900
LAYERS = ("lib", "proto", "daemon", "client")
# What each top folder may include (besides itself).
MAY_INCLUDE = {"lib": {"lib"}, "proto": {"lib", "proto"},
               "daemon": {"lib", "proto", "daemon"}, "client": {"lib", "proto", "client"}}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

problems = []


def problem(msg):
    problems.append(msg)


def product_files():
    out = []
    for top in LAYERS:
        for dirpath, _dirs, files in os.walk(top):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.join(dirpath, f))
    return sorted(out)


def resolve(including, name):
    """The repository path an include names (None: not a file of ours)."""
    here = os.path.dirname(including)
    local = os.path.normpath(os.path.join(here, name))
    if os.path.exists(local):
        return local
    if os.path.exists(name):
        return os.path.normpath(name)
    return None


def check_includes(files):
    for f in files:
        top = f.split("/")[0]
        text = open(f, encoding="utf-8").read()
        for name in INCLUDE.findall(text):
            target = resolve(f, name)
            if target is None:
                continue
            ttop = target.split("/")[0]
            if ttop not in MAY_INCLUDE[top]:
                problem("%s includes %s: %s/ may include only %s" %
                        (f, target, top, ", ".join(sorted(t + "/" for t in MAY_INCLUDE[top]))))
            if f.startswith("daemon/server/") and target.startswith("daemon/") and \
                    not target.startswith("daemon/server/"):
                problem("%s includes %s: the server core never includes a method folder's "
                        "header (the methods register in its table)" % (f, target))
            if top == "client" and not f.startswith("client/tsctl/") and \
                    target.startswith("client/tsctl/"):
                problem("%s includes %s: the client library knows nothing of tsctl" % (f, target))
            tdir = os.path.dirname(target)
            if target.endswith("_internal.h") and tdir != os.path.dirname(f):
                problem("%s includes %s: an internal header is for its own folder (%s/)" %
                        (f, target, tdir))
            if "/" not in name and tdir != os.path.dirname(f):
                problem("%s includes \"%s\" by its bare name from another folder; name it "
                        "from the repository root" % (f, name))


def check_folders(files):
    folders = {}
    for f in files:
        folders.setdefault(os.path.dirname(f), []).append(f)
    for d, fs in sorted(folders.items()):
        cs = [f for f in fs if f.endswith(".c")]
        hs = [os.path.basename(f) for f in fs if f.endswith(".h")]
        internal = [h for h in hs if h.endswith("_internal.h")]
        public = [h for h in hs if not h.endswith("_internal.h")]
        if len(cs) > MAX_C_FILES:
            problem("%s/ holds %d C files (at most %d: split it by concept)" %
                    (d, len(cs), MAX_C_FILES))
        if len(internal) > 1:
            problem("%s/ has %d internal headers (%s); one at most" %
                    (d, len(internal), ", ".join(sorted(internal))))
        if len(public) > 1:
            problem("%s/ has %d public headers (%s); one is the folder's contract" %
                    (d, len(public), ", ".join(sorted(public))))
        for c in cs:
            with open(c, encoding="utf-8") as fh:
                n = sum(1 for _ in fh)
            if n > MAX_LINES:
                problem("%s has %d lines (at most %d: a file that long is two concepts)" %
                        (c, n, MAX_LINES))


def nm_symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRVW":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def check_circles(files, build):
    sources = [f for f in files if f.endswith(".c")]
    objects = {}
    for src in sources:
        obj = os.path.join(build, src[:-2] + ".o")
        if not os.path.exists(obj):
            problem("%s: no object %s (build first: make all)" % (src, obj))
            continue
        objects[src] = nm_symbols(obj)
    owner = {}
    for src, (defined, _u) in objects.items():
        for sym in defined:
            owner[sym] = src
    calls = {src: {} for src in objects}
    for src, (_d, undefined) in objects.items():
        for sym in undefined:
            dst = owner.get(sym)
            if dst is not None and dst != src:
                calls[src].setdefault(dst, sym)
    # Tarjan's strongly connected components, iteratively.
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(calls):
        if root in index:
            continue
        work = [(root, iter(sorted(calls[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(calls[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    for comp in comps:
        edges = ["%s -> %s (%s)" % (a, b, calls[a][b]) for a in comp for b in sorted(calls[a])
                 if b in comp]
        problem("a circle of files calling each other: %s" % "; ".join(edges))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    files = product_files()
    check_includes(files)
    check_folders(files)
    check_circles(files, build)
    for p in problems:
        print("layout: " + p)
    folders = len({os.path.dirname(f) for f in files})
    if problems:
        print("layout: %d problem(s) (docs/architecture.md says why the rules hold)" % len(problems))
        return 1
    print("layout: %d files in %d folders: arrows down only, internal headers kept inside, "
          "no folder over %d C files, no C file over %d lines, no circle between files" %
          (len(files), folders, MAX_C_FILES, MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
