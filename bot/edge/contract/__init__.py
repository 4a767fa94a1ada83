"""Discord's published contract, the referee of every request the bot sends.

``openapi.json.gz`` beside this file is Discord's OpenAPI description of its HTTP API (``specs/openapi.json``
of ``discord/discord-api-spec`` at commit ``74fda0fad044407ea280043a03ffc9bc64c4e49e``, API v10, MIT:
``LICENSE``), byte-identical inside the gzip. A newer spec replaces it whole, with its commit noted here.

:meth:`Contract.check` resolves a request's route to the spec's operation, validates its JSON body (or a
multipart body's ``payload_json``) against that operation's request schema, then applies the limits Discord
documents and the spec leaves loose (:mod:`bot.edge.contract.limits`). Each broken rule comes back as a
:class:`Violation` naming the field's path and the limit. The fake Discord of the tests refuses every request
with a violation and fails the test that sent it; ``python -m bot check`` validates the command tree with it
before a first start.

``jsonschema`` is imported when a contract is first loaded: the running bot never loads one.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

from bot.edge.contract import limits
from bot.edge.contract.model import Operation, Path, Violation

__all__ = ["SPEC_COMMIT", "Contract", "Operation", "Path", "Violation", "locale_views"]

SPEC_FILE = "openapi.json.gz"
SPEC_COMMIT = "74fda0fad044407ea280043a03ffc9bc64c4e49e"
_BASE = "urn:discord-api-spec"
# Routes Discord documents outside its OpenAPI file: OAuth2's token exchange (a form body, RFC 6749), which
# the Activity's sign-in sends.
OUTSIDE_SPEC = frozenset({("POST", "/oauth2/token")})
API_PREFIX = "/api/v10"


class Contract:
    """The spec, loaded once: routes resolved to operations, bodies validated against their schemas."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        self.spec = spec
        compiled = _Compiler(spec).spec()
        self._registry = Registry().with_resource(
            _BASE, Resource.from_contents(compiled, default_specification=DRAFT202012)
        )
        self._validator_class = _coercing_validator()
        self._routes: dict[str, list[tuple[re.Pattern[str], int, Operation]]] = {}
        for template, item in spec["paths"].items():
            pattern, literal = _route_pattern(template)
            for method, op in item.items():
                if method == "parameters" or not isinstance(op, dict):
                    continue
                pointer = _body_pointer(template, method, op)
                operation = Operation(method.upper(), template, op.get("operationId", ""), pointer)
                self._routes.setdefault(method.upper(), []).append((pattern, literal, operation))
        for routes in self._routes.values():
            routes.sort(key=lambda r: -r[1])  # literal segments win over parameters (@original, bulk-delete)
        self._validators: dict[str, Any] = {}

    @classmethod
    @functools.cache
    def load(cls) -> Contract:
        """The spec shipped with the bot (read and indexed once per process)."""
        data = resources.files(__package__).joinpath(SPEC_FILE).read_bytes()
        return cls(json.loads(gzip.decompress(data)))

    def operation(self, method: str, path: str) -> Operation | None:
        """The operation a request goes to (``path`` with or without ``/api/v10``, without a query)."""
        path = path.removeprefix(API_PREFIX).split("?", 1)[0].rstrip("/") or "/"
        for pattern, _, operation in self._routes.get(method.upper(), ()):
            if pattern.fullmatch(path):
                return operation
        return None

    def schema(self, name: str) -> dict[str, Any]:
        """A named schema of the spec (``components/schemas/<name>``)."""
        return dict(self.spec["components"]["schemas"][name])

    @functools.cached_property
    def locales(self) -> frozenset[str]:
        """Discord's locales, as the spec lists them."""
        return frozenset(str(choice["const"]) for choice in self.schema("AvailableLocalesEnum")["oneOf"])

    def check(
        self, method: str, path: str, body: Any, *, files: Sequence[int] = (), payload_json: bool = False
    ) -> list[Violation]:
        """Every rule ``body`` breaks for ``method path``: the operation's schema, then the documented
        limits. ``files``: the sizes of a multipart body's file parts. An unknown route is a violation too: a
        request Discord does not publish is one it may refuse."""
        operation = self.operation(method, path)
        if operation is None:
            if (method.upper(), path.removeprefix(API_PREFIX).split("?", 1)[0]) in OUTSIDE_SPEC:
                return []  # documented elsewhere; its form is not JSON, and whoever answers it checks it
            return [Violation((), f"{method.upper()} {path} is no route of the published API")]
        found: list[Violation] = []
        if operation.schema_pointer is not None and (body is not None or payload_json):
            found.extend(self.validate(operation.schema_pointer, body))
        found.extend(limits.check(operation.operation_id, body, files, self.locales))
        return found

    def check_commands(self, commands: list[dict[str, Any]]) -> dict[str, list[Violation]]:
        """A bulk command registration as Discord takes it, and as each locale's users read it: the payload
        itself, then for each locale it carries a view of it whose names and descriptions are that
        locale's (``"(default)"`` the view of those who get no localization), each checked whole. Only the
        entries with violations are returned."""
        found = {"(payload)": self.check("PUT", "/applications/0/commands", commands)}
        for locale, view in locale_views(commands).items():
            found[locale] = self.check("PUT", "/applications/0/commands", view)
        return {locale: violations for locale, violations in found.items() if violations}

    def validate(self, pointer: str, instance: Any) -> list[Violation]:
        """``instance`` against the schema at ``pointer`` (a JSON pointer into the spec, or a schema name)."""
        if not pointer.startswith("/"):
            pointer = f"/components/schemas/{pointer}"
        validator = self._validators.get(pointer)
        if validator is None:
            validator = self._validator_class({"$ref": f"{_BASE}#{pointer}"}, registry=self._registry)
            self._validators[pointer] = validator
        found: list[Violation] = []
        for error in validator.iter_errors(instance):
            found.extend(_explain(error))
        return found


def locale_views(commands: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The commands as the users of each locale they carry read them (and ``"(default)"``: the names and
    descriptions they carry themselves), without the localization tables."""

    def view(node: Any, locale: str | None) -> Any:
        if isinstance(node, list):
            return [view(item, locale) for item in node]
        if not isinstance(node, dict):
            return node
        out = {k: view(v, locale) for k, v in node.items() if not k.endswith("_localizations")}
        for key in ("name", "description"):
            local = (node.get(f"{key}_localizations") or {}).get(locale) if locale else None
            if local is not None:
                out[key] = local
        return out

    locales: set[str] = set()

    def collect(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                collect(item)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key.endswith("_localizations") and isinstance(value, dict):
                    locales.update(value)
                else:
                    collect(value)

    collect(commands)
    return {locale or "(default)": view(commands, locale) for locale in [None, *sorted(locales)]}


_DIGITS = re.compile(r"-?[0-9]+")


def _coercing_validator() -> Any:
    """Draft 2020-12 as Discord reads it: an integer field takes a string of digits too (Discord coerces
    it), and then its bounds apply to its value."""
    from jsonschema import Draft202012Validator, validators

    def is_integer(checker: Any, instance: Any) -> bool:
        if isinstance(instance, str):
            return _DIGITS.fullmatch(instance) is not None
        return bool(Draft202012Validator.TYPE_CHECKER.is_type(instance, "integer"))

    def coerced(keyword: Any) -> Any:
        def check(validator: Any, bound: Any, instance: Any, schema: Any) -> Any:
            if isinstance(instance, str) and _DIGITS.fullmatch(instance):
                instance = int(instance)
            return keyword(validator, bound, instance, schema)

        return check

    return validators.extend(  # type: ignore[no-untyped-call]  # the stubs leave it untyped
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", is_integer),
        validators={key: coerced(Draft202012Validator.VALIDATORS[key]) for key in ("minimum", "maximum")},
    )


class _Compiler:
    """The spec's schemas rewritten into equivalent ones that validate fast and explain well: an enumeration
    written as a ``oneOf`` of constants becomes an ``enum``; a union told apart by its ``type`` field (a
    component, a callback, a command option) or by null becomes a chain of ``if``/``then``/``else``, so only
    the branch the value meant is checked and reported (a ``oneOf`` checks every branch, and fails with a
    sentence that names none of the real errors). Any other ``oneOf`` becomes an ``anyOf``."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self._schemas: Mapping[str, Any] = spec["components"]["schemas"]
        self._source = spec

    def spec(self) -> dict[str, Any]:
        out = dict(self._source)
        schemas = self._walk(dict(self._schemas))
        # A snowflake is a string of digits, and Discord takes it as a number too (discord.py sends the ids
        # of ``allowed_mentions`` as numbers).
        snowflake = schemas["SnowflakeType"]
        schemas["SnowflakeType"] = {**snowflake, "type": ["string", "integer"], "minimum": 0}
        out["components"] = {**self._source["components"], "schemas": schemas}
        out["paths"] = self._walk(self._source["paths"])
        return out

    def _target(self, node: Any) -> Any:
        """A ``$ref`` to a named schema, followed (one step)."""
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            name = node["$ref"].removeprefix("#/components/schemas/")
            return self._schemas.get(name, node)
        return node

    def _walk(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self._walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: self._walk(value) for key, value in node.items()}
        for union in ("oneOf", "anyOf"):
            branches = node.get(union)
            if isinstance(branches, list) and (rewritten := self._union(branches)) is not None:
                del node[union]
                node.pop("x-discord-union", None)
                node = {**node, **rewritten} if "if" not in node else {**node, "allOf": [rewritten]}
        if "oneOf" in node:
            # what is left is a union Discord takes a value of any branch for: with strings of digits taken
            # as numbers, a nonce "9" fits both of its branches (a number and a string)
            node["anyOf"] = node.pop("oneOf")
        if "enum" in node and isinstance(node.get("allOf"), list):
            # "enum": [2] beside "allOf": [{"$ref": an enumeration}]: the own enum is the narrower
            kept = [s for s in node["allOf"] if not self._is_enumeration(self._target(s), node["enum"])]
            node["allOf"] = kept
            if not kept:
                del node["allOf"]
        return node

    def _is_enumeration(self, schema: Any, values: list[Any]) -> bool:
        consts = self._consts(schema.get("oneOf") if isinstance(schema, dict) else None)
        return consts is not None and all(v in consts for v in values)

    @staticmethod
    def _consts(branches: Any) -> list[Any] | None:
        if not isinstance(branches, list) or not branches:
            return None
        if all(isinstance(b, dict) and "const" in b for b in branches):
            return [b["const"] for b in branches]
        return None

    def _union(self, branches: list[Any]) -> dict[str, Any] | None:
        consts = self._consts(branches)
        if consts is not None and len(set(map(json.dumps, consts))) == len(consts):
            return {"enum": consts}
        nulls = [b for b in branches if b == {"type": "null"}]
        if len(nulls) == 1 and len(branches) == 2:
            other = next(b for b in branches if b is not nulls[0])
            return {"if": {"type": "null"}, "then": True, "else": other}
        tags: list[tuple[list[Any], Any]] = []
        for branch in branches:
            target = self._target(branch)
            if not isinstance(target, dict) or "type" not in (target.get("required") or []):
                return None
            tag = (target.get("properties") or {}).get("type") or {}
            values = tag.get("enum", [tag["const"]] if "const" in tag else None)
            if not values:
                return None
            tags.append((list(values), branch))
        every = [v for values, _ in tags for v in values]
        if len(set(every)) != len(every):
            return None  # not told apart by their type: keep the union
        chain: dict[str, Any] = {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"enum": every}},
        }
        for values, branch in reversed(tags):
            chain = {"if": {"properties": {"type": {"enum": values}}}, "then": branch, "else": chain}
        return {"if": {"type": "object"}, "then": chain, "else": {"type": "object"}}


def _route_pattern(template: str) -> tuple[re.Pattern[str], int]:
    """A template's regular expression (each ``{parameter}`` one segment) and its count of literal
    segments."""
    parts = template.strip("/").split("/")
    regex = "".join("/[^/]+" if p.startswith("{") else "/" + re.escape(p) for p in parts)
    return re.compile(regex), sum(1 for p in parts if not p.startswith("{"))


def _body_pointer(template: str, method: str, op: Mapping[str, Any]) -> str | None:
    content = (op.get("requestBody") or {}).get("content") or {}
    if "application/json" not in content:
        return None
    escaped = template.replace("~", "~0").replace("/", "~1")
    return f"/paths/{escaped}/{method}/requestBody/content/application~1json/schema"


# ------------------------------------------------------------------------------------- error explanation


def _explain(error: Any) -> list[Violation]:
    """The leaf errors behind a schema error, in words: a union (``oneOf``/``anyOf``) is explained by the
    branch the value meant (the one whose ``type`` field matched), not by every branch it isn't."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        branch = _meant_branch(error.context)
        if branch is not None:
            out: list[Violation] = []
            for sub in branch:
                out.extend(_explain(sub))
            return out
    path = tuple(error.absolute_path)
    limit = error.validator_value if isinstance(error.validator_value, int | float) else None
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [key for key in error.validator_value if key not in error.instance]
        return [Violation((*path, key), "is required [required]", kind="required") for key in missing]
    span = None
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator in ("minLength", "maxLength") and "minLength" in schema and "maxLength" in schema:
        span = (int(schema["minLength"]), int(schema["maxLength"]))
    return [Violation(path, _words(error), kind=str(error.validator), limit=limit, span=span)]


def _meant_branch(context: Iterable[Any]) -> list[Any] | None:
    """Of a union's failed branches, the one the value meant: not refused for its own type or for its
    ``type`` discriminator, and with the fewest errors. None when no branch fits (a wrong kind of value)."""
    branches: dict[int, list[Any]] = {}
    for sub in context:
        branches.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    fitting = [
        errors
        for errors in branches.values()
        if not any(
            (not e.relative_path and e.validator in ("type", "const", "enum"))
            or (list(e.relative_path) == ["type"] and e.validator in ("enum", "const", "type"))
            for e in errors
        )
    ]
    return min(fitting, key=len) if fitting else None


def _words(error: Any) -> str:
    """A schema error as a sentence with its limit: "must be at most 2000 characters (it has 2001)"."""
    kind, limit, value = error.validator, error.validator_value, error.instance
    size = len(value) if isinstance(value, str | list | dict) else None
    match kind:
        case "maxLength":
            return f"must be at most {limit} characters (it has {size}) [maxLength {limit}]"
        case "minLength":
            return f"must be at least {limit} characters (it has {size}) [minLength {limit}]"
        case "maxItems":
            return f"must hold at most {limit} items (it holds {size}) [maxItems {limit}]"
        case "minItems":
            return f"must hold at least {limit} items (it holds {size}) [minItems {limit}]"
        case "maxProperties":
            return f"must hold at most {limit} entries (it holds {size}) [maxProperties {limit}]"
        case "maximum":
            return f"must be at most {limit} (it is {value!r}) [maximum {limit}]"
        case "minimum":
            return f"must be at least {limit} (it is {value!r}) [minimum {limit}]"
        case "type":
            return f"must be of type {limit} (it is {type(value).__name__} {_short(value)}) [type]"
        case "enum":
            return f"must be one of {limit} (it is {_short(value)}) [enum]"
        case "const":
            return f"must be {limit!r} (it is {_short(value)}) [const]"
        case "pattern":
            return f"must match {limit} (it is {_short(value)}) [pattern]"
        case "required":
            return f"{error.message} [required]"
        case "uniqueItems":
            return "must hold no item twice [uniqueItems]"
        case "oneOf" | "anyOf" if not error.context:
            return f"matches more than one kind allowed here ({_short(value)}) [{kind}]"
        case "oneOf" | "anyOf":
            consts = [b["const"] for b in limit if isinstance(b, dict) and "const" in b]
            if consts and len(consts) == len(limit):
                return f"must be one of {consts} (it is {_short(value)}) [{kind}]"
            return f"is none of the kinds allowed here ({_short(value)}) [{kind}]"
    return f"{error.message} [{kind}]"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
