"""The web pages' settings and signed links: what the environment may say, and that a link opens exactly what
it was signed for — the right kind, the right id, in time — and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.services.links import EVENT_SECONDS, LIVE_SECONDS, SERVER_SECONDS, SESSION_SECONDS, Links, key_from
from bot.settings import SettingsError, settings_from_env

NOW = 1_790_000_000.0


def links(secret: str = "a long enough secret") -> Links:
    return Links("https://tavern.example", key_from(secret, "token"))


def test_web_settings_from_the_environment(tmp_path: Path) -> None:
    env = {"DISCORD_TOKEN": "tok", "TAVERN_DB_PATH": str(tmp_path / "t.sqlite3")}
    plain = settings_from_env(env)
    assert (plain.web_port, plain.web_host, plain.web_url, plain.web_links) == (None, "127.0.0.1", None, None)
    served = settings_from_env({**env, "TAVERN_WEB_PORT": "8080", "TAVERN_WEB_HOST": "0.0.0.0"})
    assert served.web_links == "http://127.0.0.1:8080"  # no public address given: this machine's
    public = settings_from_env(
        {**env, "TAVERN_WEB_URL": "https://tavern.example/", "TAVERN_WEB_SECRET": "s" * 32}
    )
    assert (public.web_port, public.web_links) == (None, "https://tavern.example")  # links, no server here
    assert "s" * 32 in public.secrets and "s" * 32 not in repr(public)
    activity = settings_from_env({**env, "TAVERN_CLIENT_SECRET": " c" * 16})
    assert activity.client_secret == ("c " * 16).strip() and activity.client_secret in activity.secrets
    assert activity.client_secret not in repr(activity) and plain.client_secret == ""
    proxied = settings_from_env({**env, "TAVERN_WEB_PROXIES": "127.0.0.1, 10.0.0.0/8,::1"})
    assert proxied.web_proxies == ("127.0.0.1/32", "10.0.0.0/8", "::1/128")
    for name, bad in (
        ("TAVERN_WEB_PROXIES", "10.0.0.0/8, proxy.example"),
        ("TAVERN_WEB_URL", "https://tavern.example/" + "x" * 400),  # no room left for a link's token
        ("TAVERN_WEB_PORT", "0"),
        ("TAVERN_WEB_PORT", "99999"),
        ("TAVERN_WEB_HOST", "http://x"),
        ("TAVERN_WEB_URL", "tavern.example"),
        ("TAVERN_WEB_SECRET", "short"),
    ):
        with pytest.raises(SettingsError, match=name):
            settings_from_env({**env, name: bad})


def test_a_link_opens_what_it_was_signed_for_and_nothing_else() -> None:
    made = links()
    live = made.live(41, NOW).rsplit("/", 1)[1]
    replay = made.replay(41).rsplit("/", 1)[1]
    server = made.server(7, NOW).rsplit("/", 1)[1]
    assert made.live(41, NOW).startswith("https://tavern.example/t/41.")
    assert made.read("t", live, NOW) == 41
    assert made.read("r", replay, NOW) == 41
    assert made.read("s", server, NOW) == 7
    assert made.read("r", live, NOW) is None and made.read("s", live, NOW) is None  # another kind
    assert made.read("t", server, NOW) is None  # the server's signature is not a table's
    ident, expires, sig = live.split(".")
    assert made.read("t", f"42.{expires}.{sig}", NOW) is None  # another table
    assert made.read("t", f"{ident}.{int(expires) + 1}.{sig}", NOW) is None  # a longer life
    flipped = sig[:-1] + ("A" if sig[-1] != "A" else "B")
    assert made.read("t", f"{ident}.{expires}.{flipped}", NOW) is None
    assert links("another secret entirely").read("t", live, NOW) is None  # another bot's key
    for junk in ("", "41", "41..", f"041.{expires}.{sig}", f"41.{expires}.{sig}=", "x" * 5000, None, 41):
        assert made.read("t", junk, NOW) is None


def test_links_expire_and_say_so() -> None:
    made = links()
    live = made.token("t", 41, NOW)
    assert made.read("t", live, NOW + LIVE_SECONDS - 1) == 41  # at least its time, at most an hour more
    assert made.read("t", live, NOW + LIVE_SECONDS + 3600) is None
    assert made.token("t", 41, NOW + 1) == live or NOW // 3600 != (NOW + 1) // 3600  # stable within the hour
    assert made.expired("t", live, NOW + LIVE_SECONDS + 3600) and not made.expired("t", live, NOW)
    forged = live[:-2] + "xx"
    assert not made.expired(
        "t", forged, NOW + LIVE_SECONDS + 3600
    )  # a forgery is not "expired": it is nothing
    server = made.token("s", 7, NOW)
    assert made.read("s", server, NOW + SERVER_SECONDS + 3600) is None
    replay = made.token("r", 41, NOW)
    assert made.read("r", replay, NOW + 100 * LIVE_SECONDS) == 41  # shareable: a replay never expires


def test_a_tournament_link_is_its_own_kind_and_expires() -> None:
    made = links()
    page = made.tournament(9, NOW)
    token = page.rsplit("/", 1)[1]
    assert page.startswith("https://tavern.example/e/9.") and made.read("e", token, NOW) == 9
    for other in ("t", "s", "r"):  # another kind's signature never opens an event, nor the reverse
        assert made.read(other, token, NOW) is None
        assert made.read("e", made.token(other, 9, NOW), NOW) is None
    assert made.read("e", token, NOW + EVENT_SECONDS - 1) == 9
    assert made.read("e", token, NOW + EVENT_SECONDS + 3600) is None
    assert made.expired("e", token, NOW + EVENT_SECONDS + 3600) and not made.expired("e", token, NOW)
    _, expires, sig = token.split(".")
    assert made.read("e", f"10.{expires}.{sig}", NOW) is None  # another event


def test_an_activity_session_names_its_user_and_instance_for_an_hour_and_nothing_else() -> None:
    made = links()
    session = made.session(1234, "i-987_abc", NOW)
    assert made.read_session(session, NOW) == (1234, "i-987_abc")
    assert made.read_session(session, NOW + SESSION_SECONDS - 1) == (1234, "i-987_abc")
    assert made.read_session(session, NOW + SESSION_SECONDS) is None  # expired: sign in again
    user, instance, expires, sig = session.split(".")
    assert made.read_session(f"1235.{instance}.{expires}.{sig}", NOW) is None  # another user
    assert made.read_session(f"{user}.i-988_abc.{expires}.{sig}", NOW) is None  # another instance
    assert made.read_session(f"{user}.{instance}.{int(expires) + 9}.{sig}", NOW) is None  # a longer life
    assert links("another secret entirely").read_session(session, NOW) is None
    live = made.token("t", 1234, NOW)  # no other kind's token reads as a session, nor a session as one
    assert made.read_session(live, NOW) is None and made.read("t", session, NOW) is None
    for junk in ("", "1.2.3", session + "x", "x" * 5000, None, 1234, f"0.{instance}.{expires}.{sig}"):
        assert made.read_session(junk, NOW) is None
    for user_id, bad in ((1, "a.b"), (1, "x" * 65), (1, ""), (0, "i")):
        with pytest.raises(ValueError):
            made.session(user_id, bad, NOW)


def test_the_key_is_never_the_token_and_differs_by_secret() -> None:
    assert key_from("", "token") != b"token" and key_from("", "token") != key_from("", "other")
    assert key_from("a long enough secret", "token") == key_from("a long enough secret", "other")


def test_a_list_of_tables_with_long_links_stays_within_an_embed() -> None:
    """`/tavern tables` with fifteen tables and links of the longest address allowed: the lines that don't
    fit are counted with the rest, and the server page's link stays last."""
    from types import SimpleNamespace
    from typing import Any, cast

    from bot.base.i18n import speaking
    from bot.services.live_tables import ROOM, LiveTables, tables_text

    adapter = SimpleNamespace(title="Bhargage", score_line=lambda table: "alice 12 · bob 9")
    tables = tuple(
        cast(
            Any,
            SimpleNamespace(
                id=n, adapter=adapter, channel_id=10**17 + n, meta=SimpleNamespace(thread_id=None)
            ),
        )
        for n in range(15)
    )
    base = "https://tavern.example/" + "x" * 370
    with speaking("en"):
        text = tables_text(
            LiveTables(tables, 2), lambda table: f"{base}/t/{table.id}.1.{'s' * 22}", base + "/s"
        )
        short = tables_text(LiveTables(tables, 2), lambda table: f"/t/{table.id}", "/s")
    assert len(text) <= ROOM and base + "/s" in text.splitlines()[-1]
    shown = sum(1 for line in text.splitlines() if "/t/" in line)
    assert 0 < shown < 15 and f"{15 - shown + 2}" in text.splitlines()[-2]  # the rest are counted
    assert sum(1 for line in short.splitlines() if "/t/" in line) == 15 and "2" in short.splitlines()[-2]
