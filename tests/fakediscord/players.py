"""The players' side, what tests call: slash commands, user commands, autocomplete, button clicks, selects
and modals, as a user of Discord's client could send them (and ``forge`` for what only a modified client
could), and the waits for a quiet bot (``settle``, ``wait_for``).

As in Discord's client, a member is offered only the top-level commands whose ``default_member_permissions``
they hold (``slash`` refuses the others unless ``force``: what a modified client could still send).
``user_command`` runs a user context-menu command (type 2) on a target, offered only where the command's
``contexts`` and ``integration_types`` allow.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from .messages import FakeInteraction, FakeMessage, InteractionResult
from .model import FakeChannel, FakeUser
from .state import FakeState

# Names discord.py gives the tasks that run the bot's event, command and component handlers. settle() waits
# for them too: a handler busy between two requests (a database commit, a slow CPU) is not a quiet bot.
HANDLER_TASKS = ("discord.py: ", "discord-ui-", "CommandTree-invoker")

T = TypeVar("T")


class Players(FakeState):
    """What a test does as a player, and its waits."""

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        *,
        options: dict[str, Any] | None = None,
        expect_reply: bool = True,
        force: bool = False,
        settle: bool = True,
        **kwargs: Any,
    ) -> InteractionResult:
        """Run ``/command`` ("group sub" path) as ``user`` in ``channel`` (a DM channel works too).

        Option values: str, int, float, bool, FakeUser (USER/MENTIONABLE), FakeChannel (CHANNEL).
        ``force`` sends it even where Discord would not offer the command (a guild-only command in DMs).
        ``settle=False`` returns as soon as the bot acknowledged (for load: the bot is never quiet then).
        """
        values = {**(options or {}), **kwargs}
        data = self._command_data(user, channel, command, values, force=force)
        return await self._interact(
            2, user, channel, data, f"/{command}", expect_reply=expect_reply, settle=settle
        )

    async def user_command(
        self, user: FakeUser, channel: FakeChannel, name: str, target: FakeUser, *, force: bool = False
    ) -> InteractionResult:
        """Right-click ``target`` and pick the user command ``name`` (type 2) as ``user`` in ``channel``."""
        cmd, is_guild = self._find_command(channel, name, 2)
        if channel.is_group and not force and not self._offered_in_private(cmd):
            raise AssertionError(f"user command {name!r} is not offered in group DMs")
        if channel.guild is not None and not force and not self._offered(cmd, user):
            raise AssertionError(f"user command {name!r} is not offered to {user!r}")
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": 2,
            "target_id": str(target.id),
            "resolved": self._resolved_users([target], channel),
        }
        if is_guild and channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
        return await self._interact(2, user, channel, data, f"user command {name!r} on {target.name}")

    async def autocomplete(
        self, user: FakeUser, channel: FakeChannel, command: str, focused: str, **values: Any
    ) -> InteractionResult:
        """Ask for autocomplete choices while ``focused`` is being typed; read ``result.choices``."""
        data = self._command_data(user, channel, command, values, force=True, focused=focused)
        return await self._interact(4, user, channel, data, f"/{command} autocomplete {focused}")

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        target: str,
        *,
        expect_reply: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        """Click the button whose custom_id or label is ``target`` on ``message`` as ``user``."""
        self._check_can_use(user, message)
        buttons = message.buttons()
        found = [b for b in buttons if b.custom_id == target] or [b for b in buttons if b.label == target]
        if len(found) != 1:
            have = [(b.label, b.custom_id) for b in buttons]
            raise AssertionError(f"{len(found)} buttons match {target!r} on {message!r}; buttons: {have}")
        button = found[0]
        if button.url is not None or button.custom_id is None:
            raise AssertionError(f"button {target!r} is a link button; clicking it does not reach the bot")
        if button.disabled:
            raise AssertionError(f"button {target!r} on {message!r} is disabled; a user cannot click it")
        data = {"custom_id": button.custom_id, "component_type": 2}
        return await self._interact(
            3,
            user,
            message.channel,
            data,
            f"click {target!r}",
            message=message,
            expect_reply=expect_reply,
            settle=settle,
        )

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str,
        values: list[Any],
        *,
        expect_reply: bool = True,
        settle: bool = True,
        force: bool = False,
    ) -> InteractionResult:
        """Choose ``values`` in select ``custom_id`` (option values, or FakeUsers for a user select).

        ``force`` sends the values as given, as a modified client could: values that are not among the
        options, or too few or too many of them."""
        self._check_can_use(user, message)
        sel = message.select(custom_id)
        if sel.disabled and not force:
            raise AssertionError(f"select {custom_id!r} is disabled")
        if not sel.min_values <= len(values) <= sel.max_values and not force:
            raise AssertionError(
                f"select {custom_id!r} takes {sel.min_values}..{sel.max_values} values, got {len(values)}"
            )
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": sel.type}
        if sel.type == 3:
            allowed = sel.values()
            bad = [v for v in values if v not in allowed]
            if bad and not force:
                raise AssertionError(f"select {custom_id!r} has no options {bad}; options are {allowed}")
            data["values"] = list(values)
        else:
            data["values"] = [str(v.id if isinstance(v, FakeUser | FakeChannel) else v) for v in values]
            users = [v for v in values if isinstance(v, FakeUser)]
            if users:
                data["resolved"] = self._resolved_users(users, message.channel)
        return await self._interact(
            3,
            user,
            message.channel,
            data,
            f"select {custom_id!r}",
            message=message,
            expect_reply=expect_reply,
            settle=settle,
        )

    async def submit_modal(
        self,
        user: FakeUser,
        opened: InteractionResult,
        values: dict[str, str],
        *,
        expect_reply: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        """Fill and submit the modal opened in ``opened``; keys are text input custom_ids or labels."""
        modal = opened.modal
        if modal is None:
            raise AssertionError(f"{opened!r} did not open a modal")
        remaining = dict(values)

        def fill(comp: dict[str, Any], label: str | None = None) -> dict[str, Any]:
            cid = comp["custom_id"]
            label = label or comp.get("label")
            if cid in remaining:
                value = remaining.pop(cid)
            elif label is not None and label in remaining:
                value = remaining.pop(label)
            else:
                value = comp.get("value") or ""
            if comp.get("required", True) and not value:
                raise AssertionError(f"modal field {label or cid!r} is required")
            if len(value) > int(comp.get("max_length", 4000)) or len(value) < int(comp.get("min_length", 0)):
                raise AssertionError(f"modal field {label or cid!r} length out of bounds: {value!r}")
            return {"type": comp["type"], "custom_id": cid, "value": value}

        submitted: list[dict[str, Any]] = []
        for top in modal.get("components", []):
            if top.get("type") == 1:
                submitted.append({"type": 1, "components": [fill(c) for c in top.get("components", [])]})
            elif top.get("type") == 18:
                submitted.append({"type": 18, "component": fill(top["component"], top.get("label"))})
        if remaining:
            raise AssertionError(f"modal {modal.get('title')!r} has no fields {sorted(remaining)}")
        data = {"custom_id": modal["custom_id"], "components": submitted}
        src = opened.interaction
        return await self._interact(
            5,
            user,
            src.channel,
            data,
            f"modal {modal['custom_id']!r}",
            message=src.message,
            expect_reply=expect_reply,
            settle=settle,
        )

    async def forge(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        message: FakeMessage | None = None,
        description: str = "forged interaction",
    ) -> InteractionResult:
        """Send an interaction exactly as given, with none of the checks above: what a modified client
        could send (a custom id or select values no message offered, a message it cannot see). Returns at
        once; ``settle()`` then read ``unanswered()``."""
        return await self._interact(
            itype, user, channel, data, description, message=message, expect_reply=False, settle=False
        )

    def unanswered(self, since: int = 0) -> list[FakeInteraction]:
        """Interactions (from index ``since`` in ``interactions``) the bot never acknowledged; a callback
        later than ``callback_deadline`` was refused (10062), so it counts as none."""
        return [it for it in self.interactions[since:] if it.callback_type is None]

    async def wait_for(self, check: Callable[[], T], *, timeout: float = 5.0, what: str = "") -> T:
        """Poll ``check()`` until it returns something truthy (e.g. a timer-driven message) and return it."""
        deadline = time.monotonic() + timeout
        while not (result := check()):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what or check}")
            await asyncio.sleep(0.005)
        await self.settle()
        return result

    async def settle(self, quiet: float | None = None, timeout: float = 5.0) -> None:
        """Wait until no handler of the bot is running and it has sent nothing for ``quiet`` seconds."""
        quiet = self.quiet if quiet is None else quiet
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            idle = now - self._last_activity
            if self._inflight == 0 and idle >= quiet and not self._handlers_running():
                return
            if now > deadline:
                raise AssertionError(f"the bot did not go quiet within {timeout}s")
            await asyncio.sleep(max(quiet - idle, 0.002))

    @staticmethod
    def _handlers_running() -> bool:
        """Whether a handler task of the bot (same event loop) is still at work."""
        me = asyncio.current_task()
        return any(
            t is not me and not t.done() and t.get_name().startswith(HANDLER_TASKS)
            for t in asyncio.all_tasks()
        )
