"""Files, as Discord's "Uploading Files" reference describes them: ``multipart/form-data`` with the JSON in
``payload_json`` and each file in a ``files[n]`` part, described by the payload's ``attachments`` entries
(see ``_plan_attachments`` for creates and edits). Each file may be at most ``upload_limit`` (10 MiB, the
default for a server without boosts and for DMs; checked per file since April 2025) else 413 40005 "Request
entity too large"; at most 10 attachments per message. Uploaded bytes stay on the fake
(``attachment_bytes``, ``attachment_data``), never in what the bot receives; each attachment gets a
``content_type`` and, for PNG and GIF images, ``width``/``height``; its url serves the bytes. ``uploads``
lists every request that carried files; ``fail_uploads`` makes them fail.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from aiohttp import web

from . import media
from .errors import DiscordError, FormErrors
from .messages import FakeMessage
from .model import FakeChannel, FilePart
from .state import FakeState
from .wire import BODY_KEY, FORM_KEY

_FILE_PART = re.compile(r"files\[(\d+)\]")


class Uploads(FakeState):
    """Request bodies (JSON or multipart), attachments planned and stored, and the CDN that serves them."""

    async def _read_form(self, request: web.Request) -> tuple[dict[str, Any], dict[str, FilePart]]:
        """A ``multipart/form-data`` body as Discord's "Uploading Files" reference takes it: the JSON payload
        in a ``payload_json`` part (or, without one, plain form fields such as ``content``), and files in
        parts named ``files[n]``, each with a filename. Assumed: another name for a file part, or the same
        ``files[n]`` twice, is a 400 50035 form error on that part."""
        body: dict[str, Any] = {}
        fields: dict[str, str] = {}
        parts: dict[str, FilePart] = {}
        has_payload = False
        errors = FormErrors()
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            name = part.name or ""  # type: ignore[union-attr]
            filename = part.filename  # type: ignore[union-attr]
            if name == "payload_json" and filename is None:
                try:
                    body = json.loads(await part.text())  # type: ignore[union-attr]
                except ValueError:
                    raise DiscordError(400, 50109, "The request body contains invalid JSON.") from None
                has_payload = True
            elif filename is None:
                fields[name] = await part.text()  # type: ignore[union-attr]
            elif not _FILE_PART.fullmatch(name) or name in parts:
                await part.read()  # type: ignore[union-attr]
                errors.add((name,), "BASE_TYPE_INVALID", "Files must be uploaded as parts named files[n].")
            else:
                data = bytes(await part.read())  # type: ignore[union-attr]
                parts[name] = FilePart(name, filename, data)
        errors.raise_if_any()
        if not has_payload:
            body = dict(fields)
        if not isinstance(body, dict):
            raise DiscordError(400, 50109, "The request body contains invalid JSON.")
        return body, parts

    async def _read_body(self, request: web.Request) -> tuple[dict[str, Any], dict[str, FilePart]]:
        """The JSON payload and the file parts (by part name) of a request; a multipart one was read by the
        middleware."""
        form = request.get(FORM_KEY)
        if form is not None:
            body, files = form
            return body, files
        if request.body_exists:  # read already by the middleware's referee: aiohttp keeps it
            try:
                body = await request.json()
            except ValueError:
                raise DiscordError(400, 50109, "The request body contains invalid JSON.") from None
        else:
            body = {}
        request[BODY_KEY] = body
        return body, {}

    def _plan_attachments(
        self,
        body: dict[str, Any],
        files: dict[str, FilePart],
        current: FakeMessage | None,
        prefix: tuple[str, ...],
    ) -> list[dict[str, Any] | tuple[FilePart, str, dict[str, Any]]]:
        """The attachments a message will have after a create (``current`` None) or an edit, in order: kept
        ones as their dicts, new uploads as (part, filename, request entry).

        From Discord's reference (Uploading Files; message resource, attachment request structure and Edit
        Message): an ``attachments`` entry's ``id`` is the ``n`` of a ``files[n]`` part for a new file, or
        the snowflake of an attachment to keep; on an edit, only listed files are on the message afterwards
        (unlisted old ones are removed, unlisted new parts are not appended); an edit without
        ``attachments`` keeps the old ones and appends the new files. An entry naming no part and no
        attachment of the message is 400 50035 ``ATTACHMENT_NOT_FOUND`` "Attachment data not found" (the
        shape seen in Cogmasters/concord#78). More than 10 attachments (or file parts) is 400 30015 "Maximum
        number of attachments in a message reached (10)", from Discord's JSON error code table. Assumed: on
        a create, parts not listed are attached too; an empty filename is ``BASE_TYPE_REQUIRED`` at the
        entry's (or the part's) ``filename``.
        """
        errors = FormErrors(prefix)
        by_index = {part.index: part for part in files.values()}
        kept = {str(a["id"]): a for a in current.attachments} if current is not None else {}
        plan: list[dict[str, Any] | tuple[FilePart, str, dict[str, Any]]] = []
        entries = body.get("attachments") if "attachments" in body else None
        if "attachments" in body and entries is None:
            entries = []
        if entries is None:
            plan.extend(current.attachments if current is not None else [])
            plan.extend((part, part.filename, {}) for part in files.values())
            for part in files.values():
                if not part.filename:
                    errors.add((part.name, "filename"), "BASE_TYPE_REQUIRED", "This field is required")
        elif not isinstance(entries, list):
            errors.add(("attachments",), "BASE_TYPE_ARRAY", "Must be an array.")
        else:
            used: set[str] = set()
            for i, entry in enumerate(entries):
                at: tuple[str | int, ...] = ("attachments", i)
                if not isinstance(entry, dict):
                    errors.add(at, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
                    continue
                if not errors.required((*at, "id"), entry.get("id")):
                    continue
                eid = str(entry["id"])
                errors.too_long((*at, "description"), entry.get("description"), 1024)
                if eid in by_index and eid not in used:
                    used.add(eid)
                    part = by_index[eid]
                    filename = entry.get("filename", part.filename)
                    if not isinstance(filename, str) or not filename:
                        errors.add((*at, "filename"), "BASE_TYPE_REQUIRED", "This field is required")
                        continue
                    plan.append((part, filename, entry))
                elif eid in kept and eid not in used:
                    used.add(eid)
                    old = dict(kept[eid])
                    if entry.get("description") is not None:
                        old["description"] = entry["description"]
                    plan.append(old)
                else:
                    errors.add(at, "ATTACHMENT_NOT_FOUND", "Attachment data not found")
            if current is None:
                for part in files.values():
                    if part.index in used:
                        continue
                    if not part.filename:
                        errors.add((part.name, "filename"), "BASE_TYPE_REQUIRED", "This field is required")
                    plan.append((part, part.filename, {}))
        errors.raise_if_any()
        if max(len(plan), len(files)) > self.attachments_max:
            raise DiscordError(
                400, 30015, f"Maximum number of attachments in a message reached ({self.attachments_max})"
            )
        return plan

    def _store_attachments(
        self,
        plan: list[dict[str, Any] | tuple[FilePart, str, dict[str, Any]]],
        channel: FakeChannel,
        *,
        ephemeral: bool,
    ) -> list[dict[str, Any]]:
        """Attachment objects for a planned list, new uploads stored in ``attachment_data``: id, filename,
        size, url, proxy_url, content_type (from the bytes or the name), width/height for PNG and GIF images,
        description if given, ``ephemeral`` on an ephemeral message's attachments (assumed)."""
        out: list[dict[str, Any]] = []
        for item in plan:
            if isinstance(item, dict):
                out.append(item)
                continue
            part, filename, entry = item
            aid = self.ids.next()
            self.attachment_data[aid] = part.data
            url = f"http://127.0.0.1:{self.port}/attachments/{channel.id}/{aid}/{quote(filename)}"
            att: dict[str, Any] = {
                "id": str(aid),
                "filename": filename,
                "size": len(part.data),
                "url": url,
                "proxy_url": url,
            }
            kind = media.content_type(filename, part.data)
            if kind is not None:
                att["content_type"] = kind
            size = media.image_size(part.data)
            if size is not None:
                att["width"], att["height"] = size
            if entry.get("description") is not None:
                att["description"] = entry["description"]
            if entry.get("is_spoiler"):
                att["flags"] = 1 << 3  # IS_SPOILER
            if ephemeral:
                att["ephemeral"] = True
            out.append(att)
        return out

    def attachment_bytes(self, attachment: dict[str, Any] | int | str) -> bytes:
        """The bytes uploaded for an attachment (an attachment dict as in ``FakeMessage.attachments``, or its
        id); they stay readable after the attachment is removed from its message."""
        aid = int(attachment["id"] if isinstance(attachment, dict) else attachment)
        if aid not in self.attachment_data:
            raise AssertionError(f"no attachment {aid} was ever uploaded")
        return self.attachment_data[aid]

    async def _cdn(self, request: web.Request) -> web.Response:
        """An attachment's url: its bytes (what ``discord.Attachment.read()`` fetches)."""
        aid = request.match_info["attachment"]
        data = self.attachment_data.get(int(aid)) if aid.isdigit() else None
        if data is None:
            return web.Response(status=404, text="404: Not Found")
        return web.Response(body=data, content_type="application/octet-stream")


def file_names(plan: list[dict[str, Any] | tuple[FilePart, str, dict[str, Any]]]) -> set[str]:
    """The file names a message will have after a request, from its attachments plan."""
    return {str(p["filename"]) if isinstance(p, dict) else p[1] for p in plan}
