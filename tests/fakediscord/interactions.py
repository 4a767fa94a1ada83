"""What a player's Discord client does before the bot sees anything: which commands it offers whom
(``default_member_permissions``, ``contexts``, ``integration_types``), the command data it builds from the
synced commands and the options given, the interaction payload, and its delivery to the shard of its guild.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from typing import Any

from .messages import FakeInteraction, FakeMessage, InteractionResult
from .model import ADMINISTRATOR, ALL_PERMISSIONS, SEND_MESSAGES, VIEW_CHANNEL, FakeChannel, FakeUser
from .state import FakeState


class Interactions(FakeState):
    """Interactions built and delivered as Discord's client and gateway would."""

    def _check_can_use(self, user: FakeUser, message: FakeMessage) -> None:
        if message.deleted:
            raise AssertionError(f"{message!r} was deleted; nobody can click it")
        if message.ephemeral and message.viewer is not None and message.viewer is not user:
            raise AssertionError(f"{message!r} is ephemeral to {message.viewer!r}; {user!r} cannot see it")
        if message.channel.is_dm and message.channel.recipient is not user:
            raise AssertionError(f"{message!r} is in someone else's DMs; {user!r} cannot see it")
        if not message.channel.is_dm and not message.channel.can_view(user.id):
            raise AssertionError(f"{message!r} is in a channel {user!r} cannot view")

    def _find_command(self, channel: FakeChannel, name: str, kind: int = 1) -> tuple[dict[str, Any], bool]:
        if channel.guild is not None:
            for cmd in self.guild_commands.get(channel.guild.id, []):
                if cmd["name"] == name and cmd.get("type", 1) == kind:
                    return cmd, True
        for cmd in self.global_commands:
            if cmd["name"] == name and cmd.get("type", 1) == kind:
                return cmd, False
        known = sorted(
            {c["name"] for c in self.global_commands}
            | {c["name"] for cs in self.guild_commands.values() for c in cs}
        )
        raise AssertionError(f"no synced slash command /{name} visible in {channel!r}; synced: {known}")

    @staticmethod
    def _offered_in_private(cmd: dict[str, Any]) -> bool:
        """Whether a user-installed command shows in a group DM: context 2 and user install (1)."""
        return 2 in (cmd.get("contexts") or ()) and 1 in (cmd.get("integration_types") or ())

    @staticmethod
    def _offered(cmd: dict[str, Any], user: FakeUser) -> bool:
        """Whether Discord shows ``user`` the top-level command in a server: its
        ``default_member_permissions`` (None: everyone; "0": administrators only) are all among the member's,
        or they are an administrator.
        Discord ignores the field on subcommands, so only the top level counts."""
        needed = cmd.get("default_member_permissions")
        if needed is None or user.permissions & ADMINISTRATOR:
            return True
        return int(needed) != 0 and int(needed) & ~user.permissions == 0

    def _command_data(
        self,
        user: FakeUser,
        channel: FakeChannel,
        path: str,
        values: dict[str, Any],
        *,
        force: bool,
        focused: str | None = None,
    ) -> dict[str, Any]:
        words = path.strip().lstrip("/").split()
        if not channel.is_dm and not channel.can_view(user.id):
            raise AssertionError(f"{user!r} cannot view {channel!r}, so cannot use a command there")
        cmd, is_guild = self._find_command(channel, words[0])
        if not force and channel.guild is not None and not self._offered(cmd, user):
            raise AssertionError(
                f"/{path} is not offered to {user!r}: the command needs the permissions "
                f"{cmd['default_member_permissions']}; pass force=True to send it anyway"
            )
        if channel.is_group and not force and not self._offered_in_private(cmd):
            raise AssertionError(
                f"/{path} is not offered in group DMs (contexts or integration_types lack it); "
                "pass force=True to send it anyway"
            )
        if channel.is_dm and not force:
            contexts = cmd.get("contexts")
            if cmd.get("dm_permission") is False or (contexts is not None and 1 not in contexts):
                raise AssertionError(
                    f"/{path} is not offered in DMs (guild only); pass force=True to send it anyway"
                )
        node: dict[str, Any] = cmd
        chain: list[dict[str, Any]] = []
        for word in words[1:]:
            subs = [o for o in node.get("options", []) if o.get("type") in (1, 2)]
            match = [o for o in subs if o["name"] == word]
            if not match:
                raise AssertionError(f"/{path}: no subcommand {word!r}; have {[o['name'] for o in subs]}")
            node = match[0]
            chain.append(node)
        if any(o.get("type") in (1, 2) for o in node.get("options", [])):
            subs = [o["name"] for o in node["options"]]
            raise AssertionError(f"/{path} is a group; pick one of {subs}")

        specs = {o["name"]: o for o in node.get("options", [])}
        unknown = sorted(set(values) - set(specs))
        if unknown:
            raise AssertionError(f"/{path} has no options {unknown}; options are {sorted(specs)}")
        missing = [n for n, o in specs.items() if o.get("required") and n not in values and n != focused]
        if missing and focused is None:
            raise AssertionError(f"/{path} needs options {missing}")
        resolved: dict[str, Any] = {}
        leaf_opts: list[dict[str, Any]] = []
        for name, value in values.items():
            spec = specs[name]
            otype = int(spec["type"])
            opt: dict[str, Any] = {
                "name": name,
                "type": otype,
                "value": self._option_value(path, spec, value),
            }
            if name == focused:
                opt["focused"] = True
                opt["value"] = str(value)
            if otype in (6, 9) and isinstance(value, FakeUser):
                for key, entries in self._resolved_users([value], channel).items():
                    resolved.setdefault(key, {}).update(entries)
            if otype == 7 and isinstance(value, FakeChannel):
                resolved.setdefault("channels", {})[str(value.id)] = {
                    **value.payload(),
                    "permissions": str(ALL_PERMISSIONS),
                }
            leaf_opts.append(opt)

        options = leaf_opts
        for sub in reversed(chain):
            options = [{"name": sub["name"], "type": sub["type"], "options": options}]
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1, "options": options}
        if resolved:
            data["resolved"] = resolved
        if is_guild and channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
        return data

    @staticmethod
    def _option_value(path: str, spec: dict[str, Any], value: Any) -> Any:
        otype, name = int(spec["type"]), spec["name"]
        checks: dict[int, tuple[type | tuple[type, ...], Callable[[Any], Any]]] = {
            3: (str, str),
            4: (int, int),
            5: (bool, bool),
            10: ((int, float), float),
        }
        if otype in checks:
            kinds, conv = checks[otype]
            if not isinstance(value, kinds) or (otype in (4, 10) and isinstance(value, bool)):
                raise AssertionError(f"/{path} option {name!r} wants {conv.__name__}, got {value!r}")
            result = conv(value)
            choices = spec.get("choices")
            if choices and result not in [c["value"] for c in choices]:
                raise AssertionError(
                    f"/{path} option {name!r}: {value!r} is not one of the choices {choices}"
                )
            if otype in (4, 10):
                if "min_value" in spec and result < spec["min_value"]:
                    raise AssertionError(f"/{path} option {name!r}: {value!r} < min {spec['min_value']}")
                if "max_value" in spec and result > spec["max_value"]:
                    raise AssertionError(f"/{path} option {name!r}: {value!r} > max {spec['max_value']}")
            return result
        if otype in (6, 9):
            if not isinstance(value, FakeUser):
                raise AssertionError(f"/{path} option {name!r} wants a FakeUser, got {value!r}")
            return str(value.id)
        if otype == 7:
            if not isinstance(value, FakeChannel):
                raise AssertionError(f"/{path} option {name!r} wants a FakeChannel, got {value!r}")
            return str(value.id)
        return str(value)

    def _resolved_users(self, users: list[FakeUser], channel: FakeChannel) -> dict[str, Any]:
        resolved: dict[str, Any] = {"users": {str(u.id): u.payload() for u in users}}
        guild = channel.guild
        if guild is not None:
            members = {
                str(u.id): {**guild.member_payload(u, with_user=False), "permissions": str(ALL_PERMISSIONS)}
                for u in users
                if u in guild.members
            }
            if members:
                resolved["members"] = members
        return resolved

    def _interaction_payload(self, it: FakeInteraction) -> dict[str, Any]:
        channel = it.channel
        payload: dict[str, Any] = {
            "id": str(it.id),
            "application_id": str(self.app_id),
            "type": it.type,
            "token": it.token,
            "version": 1,
            "attachment_size_limit": self.upload_limit,
            "data": it.data,
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "app_permissions": str(channel.permissions),
            "locale": it.user.locale,
            "entitlements": [],
        }
        if channel.guild is not None:
            payload["guild_id"] = str(channel.guild.id)
            payload["guild"] = {
                "id": str(channel.guild.id),
                "locale": channel.guild.preferred_locale,
                "features": [],
            }
            payload["guild_locale"] = channel.guild.preferred_locale
            payload["member"] = {
                **channel.guild.member_payload(it.user),
                "permissions": str(it.user.permissions),
            }
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(channel.guild.id)}
        elif channel.is_group:  # the app is installed to the user's account, and not a member here
            payload["user"] = it.user.payload()
            payload["context"] = 2
            payload["authorizing_integration_owners"] = {"1": str(it.user.id)}
            payload["app_permissions"] = str(VIEW_CHANNEL | SEND_MESSAGES)
        else:
            payload["user"] = it.user.payload()
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": "0"}
        if it.message is not None:
            payload["message"] = it.message.payload()
        return payload

    async def _interact(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        description: str,
        *,
        message: FakeMessage | None = None,
        expect_reply: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        if not self._live():
            raise AssertionError("no bot is connected to the fake Discord")
        conn = self._route(channel.guild.id if channel.guild is not None else None)
        # What Discord would never deliver, whoever sends it.
        if channel.deleted or (channel.parent is not None and channel.parent.deleted):
            raise AssertionError(f"{channel!r} was deleted; nobody can use it")
        if channel.guild is not None and user not in channel.guild.members:
            raise AssertionError(f"{user!r} is not a member of {channel.guild!r}; Discord delivers nothing")
        iid = self.ids.next()
        it = FakeInteraction(
            id=iid,
            token=f"itok-{iid}-{secrets.token_hex(8)}",
            type=itype,
            user=user,
            channel=channel,
            data=data,
            description=f"{description} by {user.name} in {channel!r}",
            message=message,
            born=self.clock(),
        )
        self.interactions.append(it)
        self._by_tok[it.token] = it
        self._touch()
        payload = self._interaction_payload(it)
        it.sent_at = time.perf_counter()
        if conn is not None:
            it.shard = conn.shard_id
            await conn.send(0, payload, "INTERACTION_CREATE")
        if expect_reply:
            try:
                await asyncio.wait_for(it.answered.wait(), self.reply_timeout)
            except TimeoutError:
                why = (
                    "(check the error-log guard output for an exception)"
                    if conn is not None
                    else f"(not delivered: no live connection has its shard; live: {self.live_shards()})"
                )
                raise AssertionError(
                    f"the bot did not answer {it.description} within {self.reply_timeout}s {why}"
                ) from None
        if settle:
            await self.settle()
        return InteractionResult(it)
