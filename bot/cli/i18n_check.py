"""The catalog check (``python -m bot.cli.i18n_check``, run by ``.ci/run``): the code and the catalogs agree.

It fails when a message id used in the code is missing from a language, when a catalog holds an id no code
uses, when a translation fills other placeholders than the English text, when a plural message is looked up
as a singular one (or the reverse), and when English player text is written inline in ``bot/`` or ``cogs/``
instead of in the catalog.

Ids are found by reading the code (no import): the first argument of ``t``, ``tn``, ``Msg``, ``cmd`` and of
every error class that carries a message (subclasses of ``RulesError`` and ``UserFacingError``; plural when
it carries a count ``n=``), and of every ``Phrase`` an engine names inside a refusal. Ids made
from a family and a key (``named("suit", key)``) are checked against the family's closed set of keys below.
Text for operators — log lines, exceptions that are bugs, the store, settings and start-up — is not player
text; a line that must hold something prose-like and is not player text says so with ``# i18n: not text``.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bot.base.i18n import ENGLISH, ID_PATTERN, LANGUAGES, Catalog, misfilled, placeholders, read_catalog

ROOT = Path(__file__).resolve().parents[2]
ID_CALLS = {"t": False, "tn": True, "Msg": False, "cmd": False}  # name → looks up a plural message
ERROR_BASES = {"RulesError", "UserFacingError"}
PHRASES = {"Phrase"}  # a message an engine names inside a refusal's values, looked up where it is shown
# Modules that only speak to the operator (logs, start-up, the store, settings) or are the catalog itself.
OPERATOR_ONLY = (
    "bot/store/",
    "bot/settings/",
    "bot/__main__.py",
    "bot/cli/operations.py",
    "bot/logging_setup.py",
    "bot/services/health.py",
    "bot/services/drawing.py",
    "bot/services/workers.py",
    "bot/cli/check.py",
    "bot/edge/contract/",
    "bot/services/snapshots.py",
    "bot/base/i18n.py",
    "bot/cli/i18n_check.py",
)
LOG_METHODS = {"debug", "info", "warning", "error", "exception", "critical", "log"}
LOGGERS = {"log", "logger", "logging", "_log"}
TEXT_KEYWORDS = {"label", "placeholder", "content", "title", "description", "alt", "caption", "footer"}
PROSE = re.compile(r"[A-Za-z]{2,}[ ,.!?:;'’]+[A-Za-z]{2,}")
WORD = re.compile(r"[A-Za-z]{2,}")
PRAGMA = "i18n: not text"


def _family_keys() -> dict[str, set[str]]:
    """Each family of ids built as ``family.key`` and its keys (imported only when the check runs)."""
    from bot.ai import LEVELS
    from bot.edge.errors import PERMISSIONS, SNOWFLAKE_TYPES
    from bot.rules.decktet import ALL_CARDS, Rank, Suit

    return {
        "card": {c.slug for c in ALL_CARDS},
        "suit": {s.name.lower() for s in Suit},
        "rank": {r.name.lower() for r in Rank if not Rank.TWO <= r <= Rank.NINE},
        "level": set(LEVELS),
        "level-about": set(LEVELS),
        "perm": set(PERMISSIONS),
        "language": set(LANGUAGES),
        "option-kind": set(SNOWFLAKE_TYPES.values()),
    }


FAMILIES: Callable[[], dict[str, set[str]]] = _family_keys


@dataclass
class Use:
    msgid: str
    plural: bool
    where: str


@dataclass
class Scan:
    uses: list[Use] = field(default_factory=list)
    families: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)


def python_files(root: Path) -> Iterator[Path]:
    for top in ("bot", "cogs"):
        yield from sorted((root / top).rglob("*.py"))


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _error_classes(trees: Iterable[ast.Module]) -> tuple[set[str], set[str]]:
    """(classes whose first argument is a message id, message-carrying classes that take something else)."""
    bases: dict[str, set[str]] = {}
    own_init: dict[str, bool] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = {_name(b) for b in node.bases}
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        args = item.args.posonlyargs + item.args.args
                        own_init[node.name] = len(args) < 2 or args[1].arg != "msgid"
    carrying = set(ERROR_BASES)
    grew = True
    while grew:
        grew = False
        for name, of in bases.items():
            if name not in carrying and of & carrying:
                carrying.add(name)
                grew = True
    other = {n for n in carrying if own_init.get(n, False)}
    return carrying - other, other


def scan(root: Path = ROOT) -> Scan:
    files = list(python_files(root))
    trees = {p: ast.parse(p.read_text(encoding="utf-8"), str(p)) for p in files}
    id_errors, other_errors = _error_classes(trees.values())
    out = Scan()
    for path, tree in trees.items():
        rel = path.relative_to(root).as_posix()
        _scan_ids(tree, rel, id_errors, other_errors, out)
        if not rel.startswith(OPERATOR_ONLY):
            lines = path.read_text(encoding="utf-8").splitlines()
            _scan_inline(tree, rel, lines, id_errors, out)
    return out


def _scan_ids(tree: ast.Module, rel: str, id_errors: set[str], other_errors: set[str], out: Scan) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in id_errors | other_errors:
            for sub in ast.walk(node):
                if (
                    isinstance(sub, ast.Call)
                    and _name(sub.func) == "__init__"
                    and isinstance(sub.func, ast.Attribute)
                    and isinstance(sub.func.value, ast.Call)
                    and _name(sub.func.value.func) == "super"
                ):
                    _id_argument(sub, False, rel, out, required=False)
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        if name == "named" and rel != "bot/base/i18n.py":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                out.families.add(first.value)
            else:
                out.problems.append(f"{rel}:{node.lineno}: named() needs its family written out")
        elif name in ID_CALLS and rel not in ("bot/base/i18n.py", "bot/edge/translator.py"):
            _id_argument(node, ID_CALLS[name], rel, out, required=True)
        elif name in id_errors or name in PHRASES:  # plural when it carries a count ``n``
            _id_argument(node, any(k.arg == "n" for k in node.keywords), rel, out, required=False)


def _id_argument(node: ast.Call, plural: bool, rel: str, out: Scan, *, required: bool) -> None:
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and ID_PATTERN.match(first.value):
        out.uses.append(Use(first.value, plural, f"{rel}:{node.lineno}"))
    elif isinstance(first, ast.Constant) and isinstance(first.value, str):
        out.problems.append(f"{rel}:{node.lineno}: {first.value!r} is not a message id")
    elif required or isinstance(first, ast.JoinedStr):
        out.problems.append(
            f"{rel}:{node.lineno}: a message id must be written out (use named() for families)"
        )


def _scan_inline(tree: ast.Module, rel: str, lines: list[str], errors: set[str], out: Scan) -> None:
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            skip.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.Call):
            func = node.func
            logging_call = (
                isinstance(func, ast.Attribute)
                and func.attr in LOG_METHODS
                and isinstance(func.value, ast.Name)
                and func.value.id in LOGGERS
            )
            if logging_call or _name(func) in ID_CALLS:
                skip.update(id(sub) for sub in ast.walk(node))
        # an exception that is a bug, or one whose arguments are reasons for the log (not a message id)
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            skip.update(id(sub) for sub in ast.walk(node.exc) if _name(node.exc.func) not in errors)
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in TEXT_KEYWORDS:
            text = _literal_text(node.value)
            if text is not None and WORD.search(text) and not ID_PATTERN.match(text):
                _flag(node.value, text, rel, lines, out)
                skip.update(id(sub) for sub in ast.walk(node.value))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            skip.update(id(sub) for sub in ast.walk(node))
            text = _literal_text(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if text and PROSE.search(text) and not ID_PATTERN.match(text):
            _flag(node, text, rel, lines, out)


def _literal_text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}" for v in node.values
        )
    return None


def _flag(node: ast.expr, text: str, rel: str, lines: list[str], out: Scan) -> None:
    start, end = node.lineno, getattr(node, "end_lineno", None) or node.lineno
    if any(PRAGMA in lines[i - 1] for i in range(max(1, start - 1), end + 1) if i - 1 < len(lines)):
        return
    shown = text if len(text) <= 60 else text[:57] + "..."
    out.problems.append(f"{rel}:{start}: English text inline, not in the catalog: {shown!r}")


# ------------------------------------------------------------------------------------------------ catalogs


def check(root: Path = ROOT, locales: Path | None = None) -> list[str]:
    """Every problem found, one line each (empty: the code and the catalogs agree)."""
    found = scan(root)
    problems = list(found.problems)
    folder = locales or root / "bot" / "locales"
    catalogs: dict[str, Catalog] = {}
    for language in LANGUAGES:
        try:
            catalogs[language] = read_catalog(folder / language, language)
        except ValueError as err:
            problems.append(f"{language}: {err}")
    if len(catalogs) != len(LANGUAGES):
        return problems
    families = FAMILIES()
    family_ids = {f"{fam}.{key}" for fam in found.families if fam in families for key in families[fam]}
    problems += [f"named() family {fam!r} has no keys in FAMILIES" for fam in found.families - set(families)]
    used: dict[str, Use] = {}
    for use in found.uses:
        used.setdefault(use.msgid, use)
    english = catalogs[ENGLISH]
    for language, cat in catalogs.items():
        problems += _catalog_problems(language, cat, english, used, family_ids)
    if "tavern.text-missing" not in english.entries:
        problems.append("en: 'tavern.text-missing' (shown when a message is missing) is missing")
    return problems


def _catalog_problems(
    language: str, cat: Catalog, english: Catalog, used: dict[str, Use], family_ids: set[str]
) -> list[str]:
    """One catalog against the code (every id looked up is there, singular or plural as looked up; none is
    unused or misshapen) and against English (every translation fills the same placeholders)."""
    problems: list[str] = []
    for msgid, use in sorted(used.items()):
        entry = cat.entries.get(msgid)
        if entry is None:
            problems.append(f"{language}: {msgid!r} (used at {use.where}) is missing")
        elif entry.plural != use.plural:
            kind = "plural" if entry.plural else "singular"
            problems.append(
                f"{language}: {msgid!r} is {kind} in the catalog but looked up otherwise at {use.where}"
            )
    for msgid in sorted(family_ids - set(cat.entries)):
        problems.append(f"{language}: {msgid!r} (a key of its family) is missing")
    for msgid, entry in sorted(cat.entries.items()):
        if msgid not in used and msgid not in family_ids and msgid != "tavern.text-missing":
            problems.append(f"{language}: {msgid!r} ({entry.source}) is not used by any code")
        if not ID_PATTERN.match(msgid):
            problems.append(f"{language}: {msgid!r} ({entry.source}) is not shaped like a message id")
        if language == ENGLISH:
            continue
        source = english.entries.get(msgid)
        if source is None:
            continue
        wanted, wrong = misfilled(source, entry)
        problems += [
            f"{language}: {msgid!r} ({entry.source}) fills {sorted(placeholders(form))}, "
            f"English fills {sorted(wanted - {'n'})}"
            for form in wrong
        ]
    return problems


def main(argv: list[str] | None = None) -> int:
    problems = check()
    for line in problems:
        print(line)
    print(f"catalog check: {len(problems)} problem(s)" if problems else "catalog check: clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
