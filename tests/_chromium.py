"""Headless Chromium driven over the Chrome DevTools protocol, for tests that look at a page.

The lightest real option: Debian's ``chromium`` and the protocol over a pipe
(``--remote-debugging-pipe``: Chromium reads commands on fd 3 and writes
replies and events on fd 4, NUL-separated JSON), so no websocket library
and no driver package (Playwright, Selenium) are needed. Each browser gets
a fresh ``--user-data-dir`` and is killed, by its own pid, at the end.
"""

from __future__ import annotations

import base64
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

#: Where Debian installs it; ``chromium`` on PATH otherwise.
CHROMIUM = shutil.which("/usr/bin/chromium") or shutil.which("chromium")

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
)

#: Generous: the machine running the tests is shared and loaded.
TIMEOUT = 120.0


class CDPError(RuntimeError):
    pass


class Chromium:
    """One headless Chromium and one page (tab) attached in flat mode."""

    def __init__(self, width: int = 1200, height: int = 900) -> None:
        if CHROMIUM is None:
            raise FileNotFoundError("chromium is not installed")
        self.profile = tempfile.mkdtemp(prefix="webclean-chromium-")
        # Our ends: write commands to `commands`, read from `replies`.
        child_in, self._commands = os.pipe()
        self._replies, child_out = os.pipe()

        def plumbing() -> None:  # in the child, before exec: the pipes become fds 3 and 4
            read_end = fcntl.fcntl(child_in, fcntl.F_DUPFD_CLOEXEC, 10)
            write_end = fcntl.fcntl(child_out, fcntl.F_DUPFD_CLOEXEC, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [
                CHROMIUM,
                *FLAGS,
                "--remote-debugging-pipe",
                f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Not pass_fds=(3, 4): those numbers need not be open in this
            # process. Python's own descriptors are close-on-exec, so only
            # the two made in plumbing() (inheritable) reach Chromium.
            preexec_fn=plumbing,
            close_fds=False,
        )
        os.close(child_in)
        os.close(child_out)
        self._buffer = b""
        self._next_id = 0
        #: Every event received, in order: ``(method, params)``.
        self.events: list[tuple[str, dict[str, Any]]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.target_session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", in_target=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            in_target=True,
        )

    # -- the protocol --------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply from chromium")
            ready, _, _ = select.select([self._replies], [], [], left)
            if ready:
                chunk = os.read(self._replies, 1 << 16)
                if not chunk:
                    raise CDPError("chromium closed the pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(
        self, method: str, params: dict[str, Any] | None = None, in_target: bool = False, timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if in_target:
            message["sessionId"] = self.target_session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append((reply["method"], reply.get("params", {})))

    def wait_for(self, event: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next *event* (events already received count)."""
        for method, params in self.events:
            if method == event:
                return params
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_message(deadline)
            if "method" in message:
                self.events.append((message["method"], message.get("params", {})))
                if message["method"] == event:
                    return message.get("params", {})

    # -- what tests use ------------------------------------------------
    def open(self, path: Path) -> None:
        """Load a local file and wait for its load event."""
        self.events.clear()
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, in_target=True)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, in_target=True)
        if "exceptionDetails" in result:
            raise CDPError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions, log errors
        (blocked loads, CSP violations) and network requests, since the
        last :meth:`open`. A self-contained page has none."""
        found = []
        for method, params in self.events:
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") in ("error", "warning"):
                found.append(f"log {params['entry']['level']}: {params['entry'].get('text')}")
            elif method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if not url.startswith(("file:", "data:", "about:")):
                    found.append(f"network request: {url}")
        return found

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.call("Page.getLayoutMetrics", in_target=True)["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = self.call("Page.captureScreenshot", params, in_target=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)
        for fd in (self._commands, self._replies):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
