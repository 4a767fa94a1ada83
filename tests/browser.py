"""A real headless browser for the web pages' tests: Debian's chromium, driven by Playwright.

Nothing is downloaded but from Debian: Playwright's wheel carries its node driver, and the browser is the
system's ``chromium`` package, which the first browser test installs with apt when it is missing and the
tests run as root with apt at hand (CI, a fresh machine of the project); ``playwright install`` is never run.
Where neither is possible, :func:`chromium_or_skip` skips the tests, saying what is missing and why.

The browser runs on its own thread with its own event loop, so one chromium serves a whole test module while
every test keeps its own loop (the bot and the fake Discord live on the test's loop). Tests reach the browser
through :class:`Tab`, whose methods are coroutines of the test's loop.

Each tab records what went over the wire (:class:`Traffic`): every response with its body, every WebSocket
frame both ways, the console, the page's uncaught errors and any Content-Security-Policy violation, so a test
can look for something that must never reach the browser, and fail on errors the page did not show.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import shutil
import struct
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests import debian

T = TypeVar("T")

MISSING_CHROMIUM = "Debian's chromium is not installed (apt-get install chromium); the browser tests need it"
MISSING_PLAYWRIGHT = "playwright is not installed (pip install -e '.[test]'); the browser tests need it"
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/lib/chromium/chromium")
# Quiet and offline: no GPU, no QUIC, nothing fetched in the background. --no-sandbox: CI runs as root.
ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
START_SECONDS = 30.0  # launching chromium takes about a second here; a loaded CI machine gets more

# Every Content-Security-Policy violation the page meets, from before its first script runs (an init script
# comes from the browser's side of the page, so the policy does not apply to it).
_CSP_PROBE = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || ''));
});
"""

# What sticks out past the viewport's right edge: the page's own width; every visible element whose box ends
# past it (``over``; inside a scrolling or clipping box that itself fits they are ``scrolled``); and every
# scrolling or clipping box whose content is wider than the box (``cut``: a phone shows part of it only).
_OVERFLOW = """
() => {
  const root = document.documentElement;
  const edge = root.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.classList.length ? '.' + Array.from(el.classList).join('.') : '');
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== document.body && p !== root; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x !== 'visible') return p.getBoundingClientRect().right <= edge + 0.5;
    }
    return false;
  };
  const over = [];
  const scrolled = [];
  const cut = [];
  for (const el of document.querySelectorAll('body, body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > edge + 0.5) {
      const line = name(el) + ' ends at ' + Math.round(r.right) + 'px';
      (clipped(el) ? scrolled : over).push(line);
    }
    // (a visually hidden text for screen readers is a 1 px clipped box: not cut, just not drawn)
    const scrolls = el !== document.body && getComputedStyle(el).overflowX !== 'visible';
    if (scrolls && el.clientWidth > 1 && el.scrollWidth > el.clientWidth + 1) {
      cut.push(name(el) + ' holds ' + el.scrollWidth + 'px in ' + el.clientWidth + 'px: '
        + (el.innerText || '').slice(0, 80));
    }
  }
  const width = root.scrollWidth;
  return {scrollWidth: width, clientWidth: edge, innerWidth: window.innerWidth, over, scrolled, cut};
}
"""


def find_chromium() -> str | None:
    """The system's chromium (Debian's package), or None."""
    for path in CHROMIUM_PATHS:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium") or shutil.which("chromium-browser")


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's (width, height) from its IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@dataclass
class Response:
    url: str
    status: int
    content_type: str
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        """The body as text (HTML entities resolved), or "" for a picture."""
        if self.content_type.startswith("image/"):
            return ""
        return html.unescape(self.body.decode("utf-8", "replace"))


@dataclass
class Frame:
    sent: bool  # from the browser to the server
    url: str
    payload: str | bytes

    @property
    def text(self) -> str:
        """The frame as text; a JSON frame's strings also decoded (``\\u`` escapes and HTML entities)."""
        raw = self.payload.decode("utf-8", "replace") if isinstance(self.payload, bytes) else self.payload
        try:
            value = json.loads(raw)
        except ValueError:
            return html.unescape(raw)
        return raw + "\n" + html.unescape("\n".join(_strings(value)))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (str(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [str(value)]


@dataclass
class Traffic:
    """What one tab saw. Filled on the browser's thread; read it after :meth:`Tab.settle`."""

    requests: list[str] = field(default_factory=list)  # every URL asked for, in order
    responses: list[Response] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    sockets: list[str] = field(default_factory=list)  # WebSocket URLs opened
    console: list[tuple[str, str]] = field(default_factory=list)  # (type, text)
    page_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # requests that got no answer (not aborted navigations)

    def errors(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and failed requests: a clean page has none."""
        return (
            [f"console {kind}: {text}" for kind, text in self.console if kind in ("error", "warning")]
            + [f"uncaught: {e}" for e in self.page_errors]
            + [f"failed: {f}" for f in self.failed]
        )

    def texts(self) -> list[tuple[str, str]]:
        """(where, text) for every URL asked for, response body and WebSocket frame."""
        out = [(f"request {u}", u) for u in self.requests]
        out += [(f"response {r.url}", r.url + "\n" + r.text) for r in self.responses]
        out += [(f"ws {'sent' if f.sent else 'frame'} {f.url}", f.text) for f in self.frames]
        return out


class Chromium:
    """One headless chromium on a thread of its own. ``start()`` and ``close()`` are plain calls."""

    def __init__(self, executable: str) -> None:
        self.executable = executable
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="chromium", daemon=True)
        self._playwright: Any = None
        self.browser: Any = None
        self.version = ""

    def start(self) -> Chromium:
        from playwright.async_api import async_playwright

        self.thread.start()

        async def launch() -> None:
            self._playwright = await async_playwright().start()
            self.browser = await self._playwright.chromium.launch(
                executable_path=self.executable, args=list(ARGS), headless=True
            )
            self.version = self.browser.version

        try:
            self.call_sync(launch(), START_SECONDS)
        except BaseException:
            self.close()
            raise
        return self

    def call_sync(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` (a Playwright call) on the browser's loop; await it from the test's."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    async def open(self, url: str | None = None, *, width: int = 1280, height: int = 800) -> Tab:
        """A fresh context (no cookies, no cache) with one page of this size; at ``url`` when given."""
        tab = Tab(self)
        await self.call(tab._open(width, height))
        if url is not None:
            await tab.goto(url)
        return tab

    def close(self) -> None:
        async def stop() -> None:
            if self.browser is not None:
                await self.browser.close()
            if self._playwright is not None:
                await self._playwright.stop()

        if self.thread.is_alive():
            try:
                self.call_sync(stop(), START_SECONDS)
            finally:
                self.loop.call_soon_threadsafe(self.loop.stop)
                self.thread.join(START_SECONDS)
        if not self.loop.is_running():
            self.loop.close()


class Tab:
    """One page in its own browser context, recording its traffic. Every method is awaited on the test's
    loop; ``page`` is Playwright's Page, to use only through :meth:`run` (it lives on the browser's loop)."""

    def __init__(self, chromium: Chromium) -> None:
        self.chromium = chromium
        self.traffic = Traffic()
        self.context: Any = None
        self.page: Any = None
        self._bodies: set[asyncio.Task[None]] = set()

    # -- on the browser's loop

    async def _open(self, width: int, height: int) -> None:
        self.context = await self.chromium.browser.new_context(
            viewport={"width": width, "height": height}, device_scale_factor=1, java_script_enabled=True
        )
        page = await self.context.new_page()
        await page.add_init_script(_CSP_PROBE)
        traffic = self.traffic
        page.on("request", lambda request: traffic.requests.append(request.url))
        page.on("response", self._on_response)
        page.on("websocket", self._on_websocket)
        page.on("console", lambda msg: traffic.console.append((msg.type, msg.text)))
        page.on("pageerror", lambda error: traffic.page_errors.append(str(error)))
        page.on("requestfailed", self._on_failed)
        self.page = page

    def _on_response(self, response: Any) -> None:
        task = asyncio.get_running_loop().create_task(self._record(response))
        self._bodies.add(task)
        task.add_done_callback(self._bodies.discard)

    async def _record(self, response: Any) -> None:
        try:
            body = await response.body()
        except Exception:  # a redirect, or a page gone before its body was read
            body = b""
        try:
            headers = await response.all_headers()
        except Exception:  # the tab closed while its last response was in flight: nothing left to record
            return
        self.traffic.responses.append(
            Response(response.url, response.status, headers.get("content-type", ""), headers, body)
        )

    def _on_websocket(self, ws: Any) -> None:
        traffic = self.traffic
        traffic.sockets.append(ws.url)
        ws.on("framereceived", lambda payload: traffic.frames.append(Frame(False, ws.url, payload)))
        ws.on("framesent", lambda payload: traffic.frames.append(Frame(True, ws.url, payload)))

    def _on_failed(self, request: Any) -> None:
        failure = request.failure or ""
        if "ERR_ABORTED" not in failure:  # a navigation that replaced a pending load is not a fault
            self.traffic.failed.append(f"{request.url}: {failure}")

    async def _settle(self) -> None:
        while self._bodies:
            await asyncio.gather(*tuple(self._bodies), return_exceptions=True)

    # -- from the test's loop

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await a Playwright coroutine (``tab.page.…``) on the browser's loop."""
        return await self.chromium.call(coro)

    async def show(self, html_text: str) -> None:
        """Load ``html_text`` as the page (the harness's own checks; no server, no policy)."""
        await self.run(self.page.set_content(html_text, wait_until="load"))

    async def goto(self, url: str) -> int:
        """Open ``url``, wait for its load, and return the HTTP status."""
        response = await self.run(self.page.goto(url, wait_until="load"))
        return 0 if response is None else int(response.status)

    async def evaluate(self, script: str, arg: Any = None) -> Any:
        return await self.run(self.page.evaluate(script, arg))

    async def wait_for(self, script: str, arg: Any = None, *, timeout: float = 5.0) -> Any:
        """Wait until ``script`` (a JS function of ``arg``) returns something truthy; that value."""
        handle = await self.run(
            self.page.wait_for_function(script, arg=arg, timeout=timeout * 1000, polling="raf")
        )
        return await self.run(handle.json_value())

    async def click(self, selector: str) -> None:
        await self.run(self.page.click(selector))

    async def content(self) -> str:
        """The page's HTML as the DOM has it now (after its scripts changed it)."""
        return str(await self.run(self.page.content()))

    async def text(self, selector: str = "body") -> str:
        """What the page shows of ``selector`` (its innerText)."""
        return str(await self.run(self.page.inner_text(selector)))

    async def screenshot(self, path: Path) -> tuple[int, int]:
        """A full-page PNG at ``path``; its (width, height) as the file says."""
        data = await self.run(self.page.screenshot(path=str(path), full_page=True, type="png"))
        return png_size(bytes(data))

    async def overflow(self) -> dict[str, Any]:
        """The page's width against the viewport's, and what sticks out past its right edge."""
        return dict(await self.evaluate(_OVERFLOW))

    async def csp_violations(self) -> list[str]:
        return list(await self.evaluate("window.__cspViolations || []"))

    async def settle(self) -> Traffic:
        """Wait until every response body seen so far is recorded; the traffic."""
        await self.run(self._settle())
        return self.traffic

    async def close(self) -> None:
        if self.context is not None:
            await self.run(self.context.close())
            self.context = None


def chromium_or_skip() -> Chromium:
    """A started browser, or the test skipped with why not."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        pytest.skip(MISSING_PLAYWRIGHT)
    executable = find_chromium()
    if executable is None:
        why = debian.install("chromium", lambda: find_chromium() is not None, recommends=True)
        executable = find_chromium()
        if executable is None:
            pytest.skip(f"{MISSING_CHROMIUM} ({why})")
    return Chromium(executable).start()
