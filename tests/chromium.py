"""Headless Chromium for the tests that look at a page as a reader does: the site opened
from disk (``file://``), the notebook's board. It is driven over the DevTools protocol on
a pipe (``--remote-debugging-pipe``: JSON messages ended by a NUL byte, commands on file
descriptor 3, answers on 4), so nothing beyond Debian's ``chromium`` is needed.

    with Chromium() as browser:
        page = browser.open("file:///…/site/index.html")
        page.evaluate("document.title")
        page.screenshot(Path("index.png"))
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

#: The flags every run takes: no sandbox (root in a container), nothing fetched or synced
#: behind the page's back, a fresh profile each time.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe")


def find_chromium() -> str | None:
    """The browser's command, or None when it is not installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _above_four(fd: int) -> int:
    """``fd`` moved to a number above 4 (the original closed)."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class BrowserError(RuntimeError):
    """The browser did not answer, or answered with an error."""


class Page:
    """One tab: evaluate script in it, take its picture."""

    def __init__(self, browser: Chromium, session: str) -> None:
        self.browser = browser
        self.session = session

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session)

    def evaluate(self, expression: str, timeout: float = 20.0) -> Any:
        """The value of ``expression`` (a promise is awaited), as JSON comes back."""
        answer = self.send("Runtime.evaluate", expression=expression, awaitPromise=True,
                           returnByValue=True, timeout=int(timeout * 1000))
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"script failed: {text}")
        return answer["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"],
                              "height": size["height"], "scale": 1}
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot",
                                                    **params)["data"]))
        return path


class Chromium:
    """A headless Chromium process with a window of ``width`` × ``height`` CSS pixels."""

    def __init__(self, width: int = 1280, height: int = 900, timeout: float = 30.0) -> None:
        command = find_chromium()
        if command is None:
            raise BrowserError("chromium is not installed (apt-get install -y chromium)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="nqmip-chromium-")
        to_browser, self._commands = os.pipe()
        self._answers, from_browser = os.pipe()
        # above 4, so that placing them at 3 and 4 in the child overwrites neither
        to_browser, from_browser = (_above_four(fd) for fd in (to_browser, from_browser))

        def descriptors() -> None:  # in the child: the protocol's fixed numbers
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(
            [command, *FLAGS, f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=descriptors, pass_fds=(3, 4))
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next = 0
        self._events: list[dict[str, Any]] = []
        self.size = (width, height)

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> dict[str, Any]:
        """Send one command and return its answer (events met meanwhile are kept)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        end = time.monotonic() + self.timeout
        while True:
            answer = self._read(end)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error'].get('message')}")
                return dict(answer.get("result", {}))
            if "method" in answer:
                self._events.append(answer)

    def wait_event(self, method: str, session: str | None = None) -> dict[str, Any]:
        """The first event ``method`` (of ``session``) not yet taken, waiting for it."""
        end = time.monotonic() + self.timeout
        while True:
            for k, event in enumerate(self._events):
                if event["method"] == method and event.get("sessionId") == session:
                    del self._events[k]
                    return event
            answer = self._read(end)
            if "method" in answer:
                self._events.append(answer)

    def _read(self, end: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self._answers], [], [], left)[0]:
                raise BrowserError("the browser did not answer in time")
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(line))

    def open(self, url: str) -> Page:
        """A new tab on ``url``, loaded."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        width, height = self.size
        page.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        page.send("Page.enable")
        page.send("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", session)
        return page

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.send("Browser.close")
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._commands, self._answers):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
