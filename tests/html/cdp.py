"""A small client of the Chrome DevTools protocol over a pipe, for the HTML
report's browser tests and benchmark: Debian's headless Chromium started
with --remote-debugging-pipe (no port, no websocket), pages driven as a
person would (keys, clicks, typing), with every console error, uncaught
exception and network request the page makes recorded.

    with Browser() as b:
        p = b.page(1280, 900)
        p.goto("file:///tmp/report.html")
        p.key("j"); p.eval("document.title")
        p.screenshot("shot.png")
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
    "--remote-debugging-pipe",
]


class CDPError(Exception):
    pass


def chromium_path():
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    raise CDPError("chromium is not installed (scripts/deps.sh test installs it)")


class Browser:
    def __init__(self, timeout=20.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="ts-chromium-")
        to_chrome = os.pipe()
        from_chrome = os.pipe()
        # fds 3 and 4 of the child are the protocol's pipe.
        self._r = from_chrome[0]
        self._w = to_chrome[1]
        child = (to_chrome[0], from_chrome[1])

        def fds():
            a = os.dup(child[0])
            b = os.dup(child[1])
            os.dup2(a, 3, inheritable=True)
            os.dup2(b, 4, inheritable=True)

        self.log = open(os.path.join(self.profile, "chromium.log"), "w")
        self.proc = subprocess.Popen(
            [chromium_path()] + FLAGS + ["--user-data-dir=" + self.profile, "about:blank"],
            preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=self.log, stderr=self.log)
        os.close(child[0])
        os.close(child[1])
        self._buf = b""
        self._id = 0
        self.events = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("Browser.close", wait=False)
                self.proc.wait(5)
            except Exception:
                self.proc.kill()
                self.proc.wait()
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("no answer from chromium in time")
            ready, _, _ = select.select([self._r], [], [], left)
            if ready:
                data = os.read(self._r, 1 << 20)
                if not data:
                    raise CDPError("chromium closed the pipe (see its log)")
                self._buf += data
        i = self._buf.index(b"\0")
        msg, self._buf = self._buf[:i], self._buf[i + 1:]
        return json.loads(msg)

    def send(self, method, params=None, session=None, wait=True):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        if not wait:
            return None
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise CDPError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session, deadline):
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def pump(self, seconds=0.05):
        """Read the events that arrive within seconds."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read(deadline))
        except CDPError:
            pass

    def page(self, width, height, mobile=False):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session, width, height, mobile)


class Page:
    def __init__(self, browser, session, width, height, mobile):
        self.b = browser
        self.s = session
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable")
        self.resize(width, height, mobile)

    def call(self, method, params=None):
        return self.b.send(method, params, self.s)

    def resize(self, width, height, mobile=False):
        self.width = width
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})

    def color_scheme(self, scheme):
        self.call("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def goto(self, url, ready="document.documentElement.dataset.ready === 'true'"):
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.b.timeout
        self.b.wait_event("Page.loadEventFired", self.s, deadline)
        self.wait(ready)

    def wait(self, expr, timeout=None):
        deadline = time.monotonic() + (timeout or self.b.timeout)
        while not self.eval(expr):
            if time.monotonic() > deadline:
                raise CDPError("timed out waiting for " + expr)
            time.sleep(0.02)

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise CDPError("%s: %s" % (expr, r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def key(self, key, code=None):
        """Press and release one key, as a keyboard does (keyDown with its
        text, then keyUp)."""
        special = {"Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""),
                   "ArrowDown": ("ArrowDown", 40, ""), "ArrowUp": ("ArrowUp", 38, "")}
        if key in special:
            code, vk, text = special[key]
        else:
            vk = ord(key.upper()) if key.isalpha() else ord(key)
            code = code or ("Key" + key.upper() if key.isalpha() else {"/": "Slash", "?": "Slash"}.get(key, ""))
            text = key
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code,
                "windowsVirtualKeyCode": vk}
        if text:
            down["text"] = text
        self.call("Input.dispatchKeyEvent", down)
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                             "windowsVirtualKeyCode": vk})

    def type(self, text):
        self.call("Input.insertText", {"text": text})

    def click(self, selector):
        """A mouse click at the middle of the first element matching selector."""
        box = self.eval("(function(){var e=document.querySelector(%s); if(!e) return null;"
                        "e.scrollIntoView({block:'center'}); var r=e.getBoundingClientRect();"
                        "return [r.x+r.width/2, r.y+r.height/2];})()" % json.dumps(selector))
        if box is None:
            raise CDPError("nothing matches " + selector)
        for t in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": t, "x": box[0], "y": box[1],
                                                   "button": "left", "clickCount": 1})

    def screenshot(self, path, full=True):
        """The whole page (at most 6000 px high), or the viewport."""
        params = {"format": "png"}
        if full:
            h = self.eval("Math.ceil(document.documentElement.scrollHeight)")
            params["clip"] = {"x": 0, "y": 0, "width": self.width, "height": min(h, 6000), "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def problems(self):
        """Console errors, uncaught exceptions and log errors (CSP
        violations among them) of this page so far."""
        self.b.pump()
        out = []
        for m in self.b.events:
            if m.get("sessionId") != self.s:
                continue
            p = m.get("params", {})
            if m["method"] == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:400])
            elif m["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                out.append("console.%s: %s" % (p["type"], [a.get("value", a.get("description")) for a in p.get("args", [])]))
            elif m["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.append("log: " + p["entry"].get("text", ""))
        return out

    def requests(self):
        """URLs the page asked for (the network domain's requests)."""
        self.b.pump()
        return [m["params"]["request"]["url"] for m in self.b.events
                if m.get("sessionId") == self.s and m.get("method") == "Network.requestWillBeSent"]
