"""A page opened in headless Chromium, driven over the DevTools protocol on a pipe (no
package beyond the standard library): every request the page made, what it shows, its
width against the window's, and a screenshot.

``open_page(path, width, height)`` loads a local HTML file in a window of that size (a
phone's, 390 x 844, sets the mobile flag) and returns a :class:`Page`. Requests are those
of the page's own target, so the browser's background traffic (time queries, component
updates) is not counted against the page.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") \
    or shutil.which("google-chrome")
#: What the page is asked once loaded: its text, its pictures and its width.
PROBE = ("JSON.stringify({text: document.body ? document.body.innerText : '', "
         "svgs: document.querySelectorAll('svg').length, "
         "tables: document.querySelectorAll('table').length, "
         "scripts: document.querySelectorAll('script').length, "
         "scrollWidth: document.documentElement.scrollWidth, "
         "innerWidth: window.innerWidth})")


@dataclass
class Page:
    url: str
    requests: list[str] = field(default_factory=list)
    text: str = ""
    svgs: int = 0
    tables: int = 0
    scripts: int = 0
    scroll_width: int = 0
    inner_width: int = 0
    screenshot: bytes = b""
    #: The value of the ``probe`` expression given to :func:`open_page` (None: none).
    probed: Any = None

    @property
    def outside_requests(self) -> list[str]:
        """Every request but the page itself (and data: URLs, which stay in the page)."""
        return [u for u in self.requests if u != self.url and not u.startswith("data:")]


class _Pipe:
    """The DevTools protocol on the pipe of ``--remote-debugging-pipe``: JSON messages
    separated by NUL bytes; commands by id, events kept as they come."""

    def __init__(self, write_fd: int, read_fd: int) -> None:
        self.write_fd, self.read_fd = write_fd, read_fd
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.read_fd], [], [], left)[0]:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise ConnectionError("Chromium closed its pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        answer: dict[str, Any] = json.loads(message)
        return answer

    def call(self, method: str, session: str | None = None, timeout: float = 30,
             **params: Any) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self.events.append(answer)

    def wait_for(self, method: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._read(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event


def open_page(path: Path, width: int = 1280, height: int = 900,
              settle: float = 0.5, probe: str | None = None) -> Page:
    """Load ``path`` in headless Chromium in a ``width`` x ``height`` window (mobile below
    600 px); the page's requests, text, width and a full-page screenshot, and the value of
    the JavaScript expression ``probe`` (evaluated after the screenshot; JSON values)."""
    if CHROMIUM is None:
        raise FileNotFoundError("chromium is not installed")
    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()
    with _profile() as profile:
        def pipes_on_3_and_4() -> None:  # where --remote-debugging-pipe looks
            read, write = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(read, 3)
            os.dup2(write, 4)

        proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"],
            close_fds=False, preexec_fn=pipes_on_3_and_4, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        pipe = _Pipe(to_chrome_w, from_chrome_r)
        try:
            return _load(pipe, path.resolve().as_uri(), width, height, settle, probe)
        finally:
            with contextlib.suppress(TimeoutError, ConnectionError, RuntimeError, OSError):
                pipe.call("Browser.close", timeout=5)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            os.close(to_chrome_w)
            os.close(from_chrome_r)


def _load(pipe: _Pipe, url: str, width: int, height: int, settle: float,
          extra: str | None = None) -> Page:
    target = pipe.call("Target.createTarget", url="about:blank")["targetId"]
    session = pipe.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    pipe.call("Network.enable", session)
    pipe.call("Page.enable", session)
    pipe.call("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
              deviceScaleFactor=1, mobile=width < 600)
    pipe.events.clear()
    pipe.call("Page.navigate", session, url=url)
    pipe.wait_for("Page.loadEventFired")
    time.sleep(settle)  # anything the page would still fetch after its load event
    probe = json.loads(pipe.call("Runtime.evaluate", session, expression=PROBE,
                                 returnByValue=True)["result"]["value"])
    shot = pipe.call("Page.captureScreenshot", session, format="png",
                     captureBeyondViewport=True)
    probed = None if extra is None else pipe.call(
        "Runtime.evaluate", session, expression=extra, returnByValue=True)["result"].get("value")
    requests = [e["params"]["request"]["url"] for e in pipe.events
                if e.get("method") == "Network.requestWillBeSent"
                and e.get("sessionId") == session]
    return Page(url=url, requests=requests, text=probe["text"], svgs=probe["svgs"],
                tables=probe["tables"], scripts=probe["scripts"],
                scroll_width=probe["scrollWidth"], inner_width=probe["innerWidth"],
                screenshot=base64.b64decode(shot["data"]), probed=probed)


class _profile:
    """A throw-away Chromium profile folder."""

    def __enter__(self) -> str:
        import tempfile

        self.path = tempfile.mkdtemp(prefix="nqmip-chromium-")
        return self.path

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
