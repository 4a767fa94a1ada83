"""A finished game's pages: ``/r/<token>`` step by step (``?step=N``), ``/r/<token>/step/<N>`` one step as
JSON for replay.js, ``/r/<token>/record`` its game record (``bot.services.game_record``). Only a finished (or
abandoned) game has them: a live game's record and replay would deal every hidden hand (its seed). Each is
built once, off the event loop, and kept by what it shows (``built``). Mixed into ``server.WebServer``, whose
link reading, guard and builder they share."""

from __future__ import annotations

import json
import re
from typing import Protocol

from aiohttp import web

from bot.base.i18n import speaking
from bot.edge.record_export import file_name
from bot.edge.web import pages
from bot.edge.web.answers import NO_STORE, language, page
from bot.edge.web.built import Built, Ended, Over, Refused, record_text
from bot.edge.web.sight import replay_step
from bot.services.links import Kind

STEP = re.compile(r"0|[1-9][0-9]{0,5}", re.ASCII)


class _Server(Protocol):
    """The web server as its replay routes use it."""

    @property
    def built(self) -> Built: ...
    def client(self, request: web.Request) -> str | None: ...
    def _read(self, kind: Kind, token: str) -> int: ...
    async def _over_of(self, request: web.Request, game_id: int) -> Over | None: ...
    async def _replay_over(self, request: web.Request) -> tuple[int, Over]: ...


class PastRoutes:
    """The routes' handlers; ``WebServer`` adds the routes."""

    async def _replay_over(self: _Server, request: web.Request) -> tuple[int, Over]:
        """The finished game a replay link opens (404 for a live one: its seed would deal every hand)."""
        game_id = self._read("r", request.match_info["token"])
        over = await self._over_of(request, game_id)
        if over is None:
            raise Refused(404)
        return game_id, over

    async def _replay(self: _Server, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        raw = request.query.get("step", "0")
        if STEP.fullmatch(raw) is None:
            raise Refused(400)
        game_id, over = await self._replay_over(request)
        index, lang = max(0, min(int(raw), over.steps - 1)), language(request)

        def build(ended: Ended) -> bytes:
            with speaking(lang):
                step = replay_step(ended.replay, index)
                html = pages.replay_page(step, lang=lang, record_path=f"/r/{token}/record")
            return html.encode()

        body = await self.built.page(self.client(request), game_id, ("replay", game_id, index, lang), build)
        return page(body)

    async def _step(self: _Server, request: web.Request) -> web.Response:
        game_id, over = await self._replay_over(request)
        index, lang = max(0, min(int(request.match_info["step"]), over.steps - 1)), language(request)

        def build(ended: Ended) -> bytes:
            with speaking(lang):
                html = pages.replay_fragment(replay_step(ended.replay, index), lang)
            return json.dumps({"html": html, "index": index, "total": over.steps}).encode()

        body = await self.built.page(self.client(request), game_id, ("step", game_id, index, lang), build)
        return web.Response(
            body=body, content_type="application/json", charset="utf-8", headers={"Cache-Control": NO_STORE}
        )

    async def _record(self: _Server, request: web.Request) -> web.Response:
        """The game record as a text file, its comments in the browser's language (written once)."""
        game_id, _ = await self._replay_over(request)
        lang = language(request)
        key = ("record", game_id, lang)
        body = await self.built.page(self.client(request), game_id, key, lambda e: record_text(e, lang))
        if not body:
            raise Refused(404)
        headers = {
            "Content-Disposition": f'attachment; filename="{file_name(game_id)}"',  # i18n: not text
            "Cache-Control": NO_STORE,
        }
        return web.Response(body=body, content_type="text/plain", charset="utf-8", headers=headers)
