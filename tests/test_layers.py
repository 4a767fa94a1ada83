"""The house plan, enforced: every import of bot/, cogs/ and bench/ is read with ``ast`` (imports under
``if TYPE_CHECKING`` and inside functions too), and a module may import only its own package, a lower
layer, the standard library and the outside packages its layer (or one below it) is allowed.

The layers, lowest first, are the table in docs/ARCHITECTURE.md ("Layers"): keep the two in step.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Layer:
    rank: int
    packages: frozenset[str] = frozenset()  # outside packages this layer adds to those below it
    forbidden_stdlib: frozenset[str] = frozenset()


ENTRY = Layer(7, frozenset({"discord", "aiohttp"}))
# Module prefix -> layer. The longest matching prefix wins. Siblings of one rank may not import each other.
LAYERS: dict[str, Layer] = {
    "bot.rules": Layer(0, forbidden_stdlib=frozenset({"asyncio"})),
    "bot.ai": Layer(1, forbidden_stdlib=frozenset({"asyncio"})),
    "bot.pictures": Layer(1, frozenset({"PIL"}), forbidden_stdlib=frozenset({"asyncio"})),
    "bot.base": Layer(1, frozenset({"babel", "openskill", "prometheus_client"})),
    "bot.settings": Layer(1, frozenset({"dotenv"})),
    "bot.logging_setup": Layer(1),
    "bot.render": Layer(2),
    "bot.games": Layer(3),
    "bot.store": Layer(4, frozenset({"aiosqlite", "asyncpg"})),
    "bot.services": Layer(5),
    "bot.edge": Layer(6, frozenset({"discord", "aiohttp", "jsonschema", "referencing"})),
    # entry points: what ``python -m bot …`` runs, and the package itself
    "bot": ENTRY,
    "cogs": ENTRY,
    "bench": Layer(8, frozenset({"yarl", "fontTools"})),  # fontTools: build_fonts (the test extra)
}
# Packages whose modules may not import each other beyond their own folder, though of one rank.
PACKAGE_OF = {prefix: prefix for prefix in LAYERS}
# What a cog must never touch, whatever its rank: it goes through a service.
COGS_FORBIDDEN = ("bot.store",)
# The fake Discord, the test kit benchmarks use: its package is its one entry (tests/fakediscord/README.md).
TEST_KIT = "tests.fakediscord"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> tuple[str, Layer]:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return best, LAYERS[best]


Sources = dict[Path, str]


def sources(extra: Sources | None = None) -> Sources:
    """Every module's text; ``extra`` adds modules that exist only here (to show the check failing)."""
    found = {
        p: p.read_text(encoding="utf-8")
        for top in ("bot", "cogs", "bench")
        for p in (ROOT / top).rglob("*.py")
    }
    return dict(sorted({**found, **(extra or {})}.items()))


def imports(path: Path, text: str, names: set[str]) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line."""
    tree = ast.parse(text, str(path))
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                # ``from bot import tables`` names a module; ``from bot.x import Name`` names a value of bot.x
                candidate = f"{base}.{alias.name}"
                yield node.lineno, candidate if candidate in names else base


def _own(module: str) -> bool:
    top = module.split(".")[0]
    return top in ("bot", "cogs", "bench", "tests")


def violations(extra: Sources | None = None) -> list[str]:
    found: dict[str, None] = {}  # in order, once per line and target
    allowed_outside: dict[int, set[str]] = {}
    for layer in LAYERS.values():
        for rank in range(layer.rank, 10):
            allowed_outside.setdefault(rank, set()).update(layer.packages)
    every = sources(extra)
    names = {module_name(p) for p in every}
    for path, text in every.items():
        here = module_name(path)
        prefix, layer = layer_of(here)
        rel = path.relative_to(ROOT)
        for line, target in imports(path, text, names):
            top = target.split(".")[0]
            where = f"{rel}:{line} imports {target}"
            if not _own(target):
                if top in sys.stdlib_module_names or top == "__future__":
                    if top in layer.forbidden_stdlib:
                        found.setdefault(f"{where}: the standard library's {top} is not for this layer")
                elif top not in allowed_outside[layer.rank]:
                    found.setdefault(f"{where}: {top} is not allowed in {prefix}")
                continue
            if top == "tests":
                if prefix != "bench":
                    found.setdefault(f"{where}: only benchmarks and tests use the test harness")
                elif target.startswith(f"{TEST_KIT}."):
                    found.setdefault(f"{where}: the test kit is imported from {TEST_KIT}, not its modules")
                continue
            their_prefix, theirs = layer_of(target)
            if their_prefix == prefix:
                continue  # its own package
            if prefix == "cogs" and target.startswith(COGS_FORBIDDEN):
                found.setdefault(f"{where}: a cog goes through a service, never the store")
            elif theirs.rank >= layer.rank and not (prefix in ("bot", "cogs") and theirs is ENTRY):
                below = f"{their_prefix} (layer {theirs.rank}) is not below {prefix} (layer {layer.rank})"
                found.setdefault(f"{where}: {below}")
    return list(found)


def cycles(extra: Sources | None = None) -> list[list[str]]:
    """Import circles among bot/, cogs/ and bench/ modules (every import counted, as above)."""
    graph: dict[str, set[str]] = {}
    every = sources(extra)
    names = {module_name(p) for p in every}
    for path, text in every.items():
        here = module_name(path)
        graph.setdefault(here, set())
        for _, target in imports(path, text, names):
            if _own(target) and target in names and target != here:
                graph[here].add(target)
    # Tarjan's strongly connected components
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part: list[str] = []
            while True:
                top = stack.pop()
                on.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


# The debt this plan was written to pay, as it stood when the check was written: each entry is removed with
# the change that pays it, and an entry that no longer happens fails the test until it is removed.
KNOWN_VIOLATIONS: set[str] = set()
KNOWN_CIRCLES: set[tuple[str, ...]] = set()


def test_every_import_goes_down() -> None:
    found = violations()
    keys = {re.sub(r":\d+ imports ", " imports ", v.split(": ")[0]) for v in found}
    new = [
        v for v in found if re.sub(r":\d+ imports ", " imports ", v.split(": ")[0]) not in KNOWN_VIOLATIONS
    ]
    assert not new, "imports that break the layers (docs/ARCHITECTURE.md):\n" + "\n".join(new)
    assert keys >= KNOWN_VIOLATIONS, f"paid off, remove from KNOWN_VIOLATIONS: {KNOWN_VIOLATIONS - keys}"


def test_no_import_circles() -> None:
    found = {tuple(c) for c in cycles()}
    assert found <= KNOWN_CIRCLES, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)
    assert found >= KNOWN_CIRCLES, f"untied, remove from KNOWN_CIRCLES: {KNOWN_CIRCLES - found}"


@pytest.mark.parametrize(
    ("module", "source", "why"),
    [
        ("bot/rules/zz_probe.py", "from bot.base import i18n\n", "not below bot.rules"),
        ("bot/rules/zz_probe.py", "import asyncio\n", "asyncio is not for this layer"),
        ("bot/games/zz_probe.py", "import discord\n", "discord is not allowed in bot.games"),
        ("bot/services/zz_probe.py", "from bot.edge import delivery\n", "not below bot.services"),
        ("bot/ai/zz_probe.py", "from bot.pictures import faces\n", "not below bot.ai"),
        ("cogs/zz_probe.py", "from bot.store import Store\n", "never the store"),
        ("bench/zz_probe.py", "from tests.fakediscord.model import FakeUser\n", "not its modules"),
    ],
)
def test_a_violation_is_found(module: str, source: str, why: str) -> None:
    """The check can fail: a module written against the plan is reported, and the report says why."""
    found = [v for v in violations({ROOT / module: source}) if v.startswith(module)]
    assert len(found) == 1 and why in found[0], found


def test_a_circle_is_found() -> None:
    probes = {
        ROOT / "bench" / "zz_probe_a.py": "from bench import zz_probe_b\n",
        ROOT / "bench" / "zz_probe_b.py": "from bench import zz_probe_a\n",
    }
    found = cycles(probes)
    assert ["bench.zz_probe_a", "bench.zz_probe_b"] in found


# How big a room may grow: a file of bot/ outside the engines (bot/rules), a class, a function.
MOST_LINES = {"file": 500, "class": 400, "function": 60}
# Rooms still too big when the limits were set; each entry is removed with the change that splits it.
KNOWN_LARGE: set[str] = set()


def too_large(every: Sources) -> dict[str, int]:
    """Rooms over their limit, counted in lines from the first line to the last (docstrings included)."""
    found: dict[str, int] = {}
    for path, text in every.items():
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith("bot/"):
            continue
        if len(text.splitlines()) > MOST_LINES["file"] and not rel.startswith("bot/rules/"):
            found[f"file {rel}"] = len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            kind = {ast.ClassDef: "class", ast.FunctionDef: "function", ast.AsyncFunctionDef: "function"}
            what = kind.get(type(node))
            if what is None:
                continue
            assert isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MOST_LINES[what]:
                found[f"{what} {rel}:{node.name}"] = lines
    return found


def test_rooms_stay_small() -> None:
    found = too_large(sources())
    new = {k: v for k, v in found.items() if k not in KNOWN_LARGE}
    assert not new, f"over {MOST_LINES} lines: {new}"
    assert set(found) >= KNOWN_LARGE, f"split, remove from KNOWN_LARGE: {KNOWN_LARGE - set(found)}"


def test_a_large_room_is_found() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(61))
    probe = {ROOT / "bot" / "base" / "zz_probe.py": f"def big() -> None:\n{body}"}
    assert too_large(probe) == {"function bot/base/zz_probe.py:big": 62}
