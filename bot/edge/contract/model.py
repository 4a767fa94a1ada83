"""What the contract speaks of: a request's operation, and a broken rule."""

from __future__ import annotations

from dataclasses import dataclass

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Violation:
    """One broken rule: where in the body (``path``), what it says, the rule's source (``spec`` for the
    published schema, ``docs`` for a documented limit the schema leaves loose), and its kind and bound where
    it has one (``maxLength`` 2000), so that a fake can answer in Discord's own words. ``refusal``: Discord's
    own error for it, where that is not the usual 400 50035 (status, code, message)."""

    path: Path
    message: str
    source: str = "spec"
    kind: str = ""
    limit: int | float | None = None
    refusal: tuple[int, int, str] | None = None
    span: tuple[int, int] | None = None  # a length's both bounds, where its schema gives both

    @property
    def where(self) -> str:
        return ".".join(str(p) for p in self.path) or "(body)"

    def __str__(self) -> str:
        return f"{self.where}: {self.message} [{self.source}]"


@dataclass(frozen=True)
class Operation:
    """One route of the spec: its method, template and request schema (None: the route takes no body)."""

    method: str
    template: str
    operation_id: str
    schema_pointer: str | None
