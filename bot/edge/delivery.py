"""Panels to Discord: each control with its custom id (``bot.edge.custom_ids``, which also reads a press
back), and best-effort sending. What is sent is cut to Discord's limits here, so
no message is refused for its size, and every message goes through :func:`deliver`: its picture drawn in the
drawing process (``bot.services.drawing``) and uploaded, or left out (logged) when it is not drawn in time,
can't be drawn or Discord refuses it. A panel that asks for it goes as one container of layout components
(``bot.edge.layout``); an edit keeps the format of the message it edits, since Discord lets no edit take the
layout flag off (nor, in its stricter reading, put it on): a message sent before layouts keeps the old form
until the game replaces it with a new one. Nothing here knows any game's rules, nor the bot object."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from functools import partial
from typing import Any, Literal, TypeVar

import discord

from bot.base.panel import Button, Control, Embed, Panel, Picture
from bot.edge import layout
from bot.edge.custom_ids import MAX_VALUES, custom_id
from bot.edge.shows import Kept, Shown, Shows
from bot.services import drawing

log = logging.getLogger("tavern.delivery")

CONTENT_LIMIT = 2000
EMBED_TITLE_LIMIT = 256
EMBED_DESCRIPTION_LIMIT = 4096
LABEL_LIMIT = 80
URL_LIMIT = 512  # a link button's url
OPTION_TEXT_LIMIT = 100
PLACEHOLDER_LIMIT = 150
STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
DESCRIPTION_LIMIT = 1024  # an attachment's description (alt text)
REFUSED_UPLOAD = 413  # Discord's "Request entity too large"
INVALID_FORM = 50035  # "Invalid Form Body": among others, a kept attachment no longer on the message
DmResult = Literal["sent", "closed", "failed"]
Messageable = discord.DMChannel | discord.PartialMessageable
T = TypeVar("T")
ANSWER_WAIT = 0.05  # an interaction's answer waits this long for its picture, then goes as text first


class Controls(discord.ui.View):
    """The components of one message, as data: never kept in memory (``on_component`` routes every press by
    its custom id), so a thousand tables' messages cost nothing and a restart loses nothing."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_finished(self) -> bool:
        return True  # every send and edit path then leaves it out of discord.py's view store


def _link(button: Button) -> discord.ui.Item[Any]:
    """A link button: opens its address, carries no custom id, and no press of it ever reaches the bot."""
    if len(button.url) > URL_LIMIT or not button.url.startswith(("https://", "http://")):
        raise ValueError("a link button's address is not a short web address")
    return discord.ui.Button(
        label=button.label[:LABEL_LIMIT],
        style=discord.ButtonStyle.link,
        url=button.url,
        emoji=button.emoji,
        disabled=button.disabled,
        row=button.row,
    )


def _item(control: Control, scope: str, key: int) -> discord.ui.Item[Any]:
    if isinstance(control, Button) and control.url:
        return _link(control)
    cid = custom_id(scope, key, control.verb, token=control.token, arg=control.arg)
    item: discord.ui.Item[Any]
    if isinstance(control, Button):
        item = discord.ui.Button(
            label=control.label[:LABEL_LIMIT],
            style=STYLES[control.style],
            emoji=control.emoji,
            disabled=control.disabled,
            row=control.row,
            custom_id=cid,
        )
    else:
        item = discord.ui.Select(
            placeholder=control.placeholder[:PLACEHOLDER_LIMIT],
            options=[
                discord.SelectOption(
                    label=o.label[:OPTION_TEXT_LIMIT],
                    value=o.value,
                    description=o.description[:OPTION_TEXT_LIMIT] if o.description else None,
                    default=o.default,
                )
                for o in control.options[:MAX_VALUES]
            ],
            min_values=min(control.min_values, len(control.options[:MAX_VALUES])),
            max_values=min(control.max_values, len(control.options[:MAX_VALUES])),
            disabled=control.disabled,
            row=control.row,
            custom_id=cid,
        )
    return item


def view(controls: tuple[Control, ...] | list[Control], scope: str, key: int) -> discord.ui.View | None:
    """Self-addressed components, or None for no controls. What does not fit Discord's five rows of five is
    left off (and logged): a message with one control too many is refused whole."""
    if not controls:
        return None
    result = Controls()
    for control in controls:
        try:
            result.add_item(_item(control, scope, key))
        except ValueError as err:
            log.warning("%s %d: control %r left off (%s)", scope, key, control.verb, err)
    return result


def _laid_item(control: Control, *, scope: str, key: int) -> discord.ui.Item[Any]:
    """A control inside a layout's action row, which places it: its own ``row`` is for classic messages."""
    return _item(replace(control, row=None), scope, key)


def embed(spec: Embed, image: str | None = None) -> discord.Embed:
    """The embed; ``image`` (an uploaded file's name) is shown inside it, under the text."""
    title = spec.title[:EMBED_TITLE_LIMIT] if spec.title else None
    out = discord.Embed(
        title=title, description=spec.description[:EMBED_DESCRIPTION_LIMIT], colour=spec.colour
    )
    if image is not None:
        out.set_image(url=f"attachment://{image}")
    return out


def mentions(pings: Sequence[int]) -> discord.AllowedMentions:
    """Whom a message may notify: exactly the users ``pings`` names. Any other mention in it (a name that
    looks like one, a value someone forged) shows as text; roles, everyone and replies never ping."""
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(u) for u in pings]
    )


def kwargs(
    panel: Panel,
    scope: str,
    key: int,
    *,
    new: bool = False,
    files: Sequence[discord.File] = (),
    kept: Shown | None = None,
    laid: bool | None = None,
) -> dict[str, Any]:
    """Send or edit arguments, with the panel's picture as ``files`` (drawn by :func:`draw`) or ``kept``
    (the attachment the edited message shows already), and its pings as the only mentions allowed. Editing
    sets every part (an edit removes old controls, and replaces, keeps or removes the old picture); a new
    message leaves out what it does not have. ``laid``: as one container (None: as the panel asks)."""
    image = files[0].filename if files else kept.filename if kept is not None else None
    out: dict[str, Any]
    if panel.layout if laid is None else laid:
        alt = panel.picture.alt[:DESCRIPTION_LIMIT] if panel.picture is not None else ""
        item = partial(_laid_item, scope=scope, key=key)
        out = {
            "content": None,
            "embeds": [],
            "view": layout.view(panel, item, image, alt),
            "allowed_mentions": mentions(panel.pings),
        }
    else:
        out = {
            "content": panel.content[:CONTENT_LIMIT] or None,
            "embeds": [embed(panel.embed, image)] if panel.embed else [],
            "view": view(panel.controls, scope, key),
            "allowed_mentions": mentions(panel.pings),
        }
    if new:
        out = {k: v for k, v in out.items() if v not in (None, [])}
        if files:
            out["files"] = list(files)
    else:
        out["attachments"] = [Kept(kept)] if kept is not None else list(files)
    return out


SHOWS = Shows()  # this process's memory of the pictures its messages show
_LATER: set[asyncio.Task[None]] = set()  # pictures on their way to answers that went as text


async def draw(picture: Picture | None, wait: float = drawing.DRAW_SECONDS) -> list[discord.File]:
    """The picture as a file to upload, drawn in the drawing process (``bot.services.drawing``, once per
    picture key) so the event loop never waits on it, and never waited for longer than ``wait``; none when
    it is not drawn in time or cannot be drawn (logged): the text beside it carries the move."""
    if picture is None:
        return []
    try:
        png = await drawing.DRAWING.picture(picture.key, picture.draw, wait)
    except drawing.TooSlow as err:
        if wait >= drawing.DRAW_SECONDS:  # a short wait is an answer's: its picture follows (see deliver)
            log.warning("picture %s left out (%s); sending text alone", picture.filename, err)
        return []
    except BrokenProcessPool:  # the drawing process died (logged once, and replaced, by bot.drawing)
        log.warning(
            "picture %s left out: the drawing process stopped or was replaced; sending text alone",
            picture.filename,
        )
        return []
    except Exception as err:
        log.error(
            "could not draw the picture %s (%s: %s); sending text alone",
            picture.filename,
            type(err).__name__,
            err,
        )
        return []
    alt = picture.alt[:DESCRIPTION_LIMIT] or None
    return [discord.File(io.BytesIO(png), filename=picture.filename, description=alt)]


async def draw_ahead(picture: Picture | None) -> None:
    """Draw a picture before it is delivered — outside a table's lock — so that delivering it later waits on
    nothing; whatever goes wrong is left for the delivery to say."""
    if picture is None or picture.key is None:
        return
    with contextlib.suppress(Exception):
        await drawing.DRAWING.picture(picture.key, picture.draw)


async def deliver(
    call: Callable[..., Awaitable[T]],
    panel: Panel,
    scope: str,
    key: int,
    *,
    new: bool = False,
    editing: int | None = None,
    later: Callable[..., Awaitable[Any]] | None = None,
    laid: bool | None = None,
) -> T:
    """Send or edit ``panel`` through ``call`` (a channel's ``send``, a message's ``edit``, an interaction's
    answer). ``editing`` is the id of the message an edit changes: a picture it shows already is kept, not
    drawn or uploaded again. ``later`` makes this an interaction's answer, which never waits on the drawing
    queue: a picture not ready within ``ANSWER_WAIT`` is left out, and put in by ``later`` (the
    interaction's own edit) once drawn, unless the message was edited again meanwhile. What an edit shows is
    remembered only when no newer edit of the message began meanwhile: a replaced edit waiting for the
    global budget gets the newer one's answer (``bot.edge.governor``), which shows another picture under
    the same file name. When Discord refuses the upload (too large, or a server error after discord.py's
    own retries) the text goes alone: a picture never blocks or loses a move. An edit keeps its message's
    format: ``laid`` (the pressed message's, when the caller has it), else what this process knows, else
    the panel's; a message of the other format (sent before layouts) refuses it, and is edited again in
    its own."""
    known = None if new else laid if laid is not None else SHOWS.laid(editing)
    form = panel.layout if known is None else known
    picture = panel.picture
    kept = SHOWS.kept(editing, picture) if picture is not None and not new else None
    files = [] if kept is not None else await draw(picture, ANSWER_WAIT if later else drawing.DRAW_SECONDS)
    edits = SHOWS.edit(editing)
    try:
        sent = await call(**kwargs(panel, scope, key, new=new, files=files, kept=kept, laid=form))
    except discord.HTTPException as err:
        if kept is not None and err.code == INVALID_FORM and "attachments" in err.text:
            # the attachment is gone (the message was edited elsewhere): upload the picture
            SHOWS.record(None, editing, None)
            return await deliver(call, panel, scope, key, new=new, editing=editing, later=later, laid=known)
        if known is None and not new and form_refused(err):
            log.info("%s %d: message %s keeps its own format (%s)", scope, key, editing, err)
            return await deliver(call, panel, scope, key, editing=editing, later=later, laid=not form)
        if not files or not (err.status == REFUSED_UPLOAD or err.status >= 500):
            raise
        log.warning("%s %d: Discord refused the picture %s (%s)", scope, key, files[0].filename, err)
        return await _text_alone(call, panel, scope, key, new=new, editing=editing, form=form)
    if SHOWS.edits(editing) == edits:  # else a newer edit began, whose answer this may be: it records itself
        SHOWS.record(sent, editing, picture if files or kept is not None else None)
    _drawn(sent, editing, panel, scope, key, form)
    if later is not None and picture is not None and not files and kept is None:
        task = asyncio.create_task(_picture_later(later, panel, scope, key, editing, edits, form))
        _LATER.add(task)
        task.add_done_callback(_LATER.discard)
    return sent


async def _text_alone(
    call: Callable[..., Awaitable[T]],
    panel: Panel,
    scope: str,
    key: int,
    *,
    new: bool,
    editing: int | None,
    form: bool,
) -> T:
    """``deliver``'s panel without its picture, which Discord refused: a picture never blocks or loses a
    move."""
    sent = await call(**kwargs(panel, scope, key, new=new, laid=form))
    SHOWS.record(sent, editing, None)
    _drawn(sent, editing, panel, scope, key, form)
    return sent


def form_refused(err: discord.HTTPException) -> bool:
    """Discord refused an edit for the format of the message it edits (the layout flag put on or taken
    off, or content or embeds sent to a layout message)."""
    return err.status == 400 and "IS_COMPONENTS_V2" in err.text


def _drawn(sent: object, editing: int | None, panel: Panel, scope: str, key: int, laid: bool) -> None:
    """Remember the format the message now has (and, for a layout, the panel it shows: see :func:`retire`)."""
    message = getattr(sent, "resource", sent)
    message_id = message.id if isinstance(message, discord.Message) else editing
    if message_id is None:
        return
    SHOWS.remember(message_id, laid)
    if laid:
        SHOWS.drawn(message_id, panel, scope, key)


async def retire(
    edit: Callable[..., Awaitable[Any]], message_id: int | None, laid: bool | None = None
) -> None:
    """Take a message's controls off, keeping what it says. A classic message loses its rows; a layout
    message is drawn again from the panel it shows, without controls (Discord refuses a layout message
    left with no component), or left as it is when this process does not know that panel (its presses are
    refused as out of date anyway)."""
    known = SHOWS.laid(message_id) if laid is None else laid
    if not known:
        await edit(view=None)
        return
    last = SHOWS.last(message_id)
    if last is None:
        log.info("message %s keeps its controls: its panel is not known here", message_id)
        return
    panel, scope, key = last
    await deliver(edit, panel.without_controls(), scope, key, editing=message_id, laid=True)


async def _picture_later(
    edit: Callable[..., Awaitable[Any]],
    panel: Panel,
    scope: str,
    key: int,
    editing: int | None,
    edits: int,
    laid: bool,
) -> None:
    """An answer's picture, put in once drawn by the interaction's own edit, unless the message was edited
    since (that edit has its own picture) or the picture cannot be drawn (logged)."""
    files = await draw(panel.picture)
    if not files or SHOWS.edits(editing) != edits:
        return
    try:
        sent = await edit(**kwargs(panel, scope, key, files=files, laid=laid))
    except discord.HTTPException as err:  # the answer stands as text
        log.info("%s %d: the picture %s did not follow its answer (%s)", scope, key, files[0].filename, err)
        return
    except RuntimeError as err:  # the bot closed while the picture was drawn: its HTTP session is gone
        if "Session is closed" not in str(err):  # i18n: not text (aiohttp's own words)
            raise
        return
    SHOWS.record(sent, editing, panel.picture)


async def send_dm(
    open_dm: Callable[[discord.abc.Snowflake], Awaitable[Messageable]],
    user_id: int,
    panel: Panel,
    key: int,
) -> tuple[DmResult, discord.Message | None]:
    """DM a table panel without raising: "closed" when the user's DMs are closed to the bot (403), "failed"
    (logged) for any other Discord error, a passing fault that must not stop the rest of a move.
    ``open_dm`` gives the DM channel: one the store remembers costs no request, else it is opened by id
    (once; discord.py keeps it), so no user lookup is needed."""
    try:
        channel = await open_dm(discord.Object(user_id))
        message = await deliver(channel.send, panel, "g", key, new=True)
    except discord.Forbidden as err:
        log.info("DMs closed for user %s (code %s)", user_id, err.code)
        return "closed", None
    except discord.HTTPException as err:
        log.warning("could not DM user %s: %s", user_id, err)
        return "failed", None
    return "sent", message


async def send_ephemeral(interaction: discord.Interaction[Any], panel: Panel, key: int) -> int | None:
    """Always a *fresh* ephemeral message: old ephemerals can't be edited after their token expires. Its
    id, when Discord says it."""
    send = interaction.followup.send if interaction.response.is_done() else interaction.response.send_message
    sent = await deliver(partial(send, ephemeral=True), panel, "g", key, new=True)
    message = getattr(sent, "resource", sent)
    return message.id if isinstance(message, discord.Message) else getattr(sent, "message_id", None)
