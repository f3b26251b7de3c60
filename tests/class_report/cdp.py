"""A small Chrome DevTools Protocol client over --remote-debugging-pipe.

Chromium reads commands from its fd 3 and writes replies and events to its
fd 4, each a JSON message ending in a NUL byte: no port is opened, so it
works in a network namespace without network (unshare -n).
"""

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import time


# Seconds a screenshot may take (Page.screenshot) before it is skipped.
SCREENSHOT_TIMEOUT = 240


class BrowserError(Exception):
    pass


class CannotStart(BrowserError):
    """Chromium is missing or does not start here (the test skips)."""


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


# The exit status of a test that skipped (CTest's SKIP_RETURN_CODE).
SKIP = 77


def skip(reason):
    print(f"SKIPPED: {reason}")
    sys.exit(SKIP)


def browser_for(work, timeout=120):
    """A headless Chromium without network for a test working in WORK (made
    afresh): $SPMV_CHROMIUM, else the one installed. The test exits as
    skipped when Chromium or unshare is missing or Chromium cannot start."""
    chromium = os.environ.get("SPMV_CHROMIUM") or find_chromium()
    if not chromium:
        skip("Chromium is not installed (Debian: apt-get install chromium; .ci/install-test-services installs it)")
    if not shutil.which("unshare"):
        skip("unshare (util-linux) is not installed")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    try:
        return Browser(chromium, work / "profile", work / "chromium.log", timeout=timeout)
    except CannotStart as error:
        skip(f"Chromium cannot start in a network namespace here: {error}")


class Browser:
    def __init__(self, executable, profile, log_path, isolate_network=True, timeout=30):
        self.timeout = timeout
        self.events = []
        self.buffer = b""
        self.next_id = 0
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        # Copies above 10 so that putting them on 3 and 4 cannot clobber each other.
        child_read = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD_CLOEXEC, 10)
        child_write = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser_read)
        os.close(from_browser_write)

        def on_fds_3_and_4():
            os.dup2(child_read, 3)
            os.dup2(child_write, 4)

        # As root Chromium refuses to start without --no-sandbox; in the
        # namespaces unshare makes, its own sandbox cannot be set up either.
        command = [executable, "--headless", "--no-sandbox", "--remote-debugging-pipe", "--disable-gpu",
                   "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
                   "--disable-extensions", "--disable-background-networking", "--disable-sync",
                   "--hide-scrollbars", "--mute-audio", "--force-color-profile=srgb",
                   f"--user-data-dir={profile}", "about:blank"]
        if isolate_network:
            if os.geteuid() == 0:
                command = ["unshare", "--net", "--"] + command
            else:
                command = ["unshare", "--map-root-user", "--net", "--"] + command
        self.log = open(log_path, "wb")
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                            close_fds=False, preexec_fn=on_fds_3_and_4)
        except OSError as error:
            raise CannotStart(f"cannot run {command[0]}: {error}") from None
        finally:
            os.close(child_read)
            os.close(child_write)
        try:
            self.call("Browser.getVersion")
        except BrowserError as error:
            self.close()
            raise CannotStart(f"Chromium did not answer: {error}; its log: {log_path}") from None

    # ------------------------------------------------------------ messages

    def _receive(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from Chromium in time")
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium closed its pipe (exit status {self.process.poll()})")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, session=None, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        for index, event in enumerate(self.events):
            if event.get("method") == method and (session is None or event.get("sessionId") == session):
                return self.events.pop(index)
        while True:
            event = self._receive(deadline)
            if event.get("method") == method and (session is None or event.get("sessionId") == session):
                return event
            self.events.append(event)

    def close(self):
        try:
            if self.process.poll() is None:
                try:
                    self.call("Browser.close")
                except (BrowserError, OSError):
                    pass
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        finally:
            for fd in (self.to_browser, self.from_browser):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.log.close()


class Page:
    """One tab; every console message, exception, log entry and dialog is kept."""

    def __init__(self, browser, width=1280, height=900):
        self.browser = browser
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.call(domain)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None):
        return self.browser.call(method, params, self.session)

    def open(self, url):
        result = self.call("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"cannot open {url}: {result['errorText']}")
        self.browser.wait_for("Page.loadEventFired", self.session)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"evaluating {expression[:80]!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def problems(self):
        """Console errors and warnings, uncaught exceptions, log errors, dialogs."""
        found = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                found.append(f"console.{params['type']}: {[a.get('value') for a in params.get('args', [])]}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"exception: {params.get('exceptionDetails', {}).get('text')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
                entry = params["entry"]
                found.append(f"log {entry.get('level')}: {entry.get('text')} {entry.get('url', '')}")
            elif method == "Page.javascriptDialogOpening":
                found.append(f"dialog: {params.get('message')}")
        return found

    def screenshot(self, path, full_page=False):
        params = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        # A picture for people to look at, asserted on by nothing: on a
        # loaded two-core machine Chromium has taken over two minutes to
        # paint the class page of 200 students. One that does not come in
        # time is said and skipped; its late answer is set aside by call().
        try:
            data = self.browser.call("Page.captureScreenshot", params, self.session, timeout=SCREENSHOT_TIMEOUT)["data"]
        except BrowserError as error:
            if "in time" not in str(error):
                raise
            print(f"screenshot {path} skipped: {error} ({SCREENSHOT_TIMEOUT} s)")
            return False
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(data))
        return True
