"""Discord's refusals as the fake makes them: an error in Discord's shape (status, code, message, and the
nested field errors of 400 50035 Invalid Form Body), and a request that broke Discord's published contract."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.edge.contract import Violation


@dataclass(frozen=True)
class ContractViolation:
    """A request that broke Discord's published contract (``bot.edge.contract``): what, where and why."""

    method: str
    path: str
    violations: tuple[Violation, ...]
    body: Any = None

    def __str__(self) -> str:
        return f"{self.method} {self.path}: " + "; ".join(str(v) for v in self.violations)


class DiscordError(Exception):
    """Raised inside a route to answer with Discord's JSON error shape (``errors`` only for 50035)."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: dict[str, Any] | None = None,
        *,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.errors: dict[str, Any] = errors or {}
        self.extra: dict[str, Any] = extra or {}  # more fields of the body (a 429's retry_after, global)
        self.headers: dict[str, str] = headers or {}  # the response's own headers (a 429's X-RateLimit-*)

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "message": self.message, **self.extra}
        if self.errors:
            data["errors"] = self.errors
        return data

    def details(self) -> list[str]:
        """``path: message`` for every field error, as discord.py prints them."""
        out: list[str] = []

        def walk(node: dict[str, Any], path: str) -> None:
            for key, value in node.items():
                if key == "_errors":
                    out.extend(f"{path}: {e['message']}" for e in value)
                elif isinstance(value, dict):
                    walk(value, f"{path}.{key}" if path else key)

        walk(self.errors, "")
        return out

    def __str__(self) -> str:
        return "; ".join([self.message, *self.details()])


class FormErrors:
    """Field errors collected over a whole body, nested the way Discord nests them."""

    def __init__(self, prefix: tuple[str, ...] = ()) -> None:
        self.prefix = prefix
        self.tree: dict[str, Any] = {}

    def add(self, path: tuple[str | int, ...], code: str, message: str) -> None:
        node = self.tree
        for key in (*self.prefix, *path):
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def too_long(self, path: tuple[str | int, ...], value: Any, limit: int) -> None:
        if isinstance(value, str | list) and len(value) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def required(self, path: tuple[str | int, ...], value: Any) -> bool:
        """Adds BASE_TYPE_REQUIRED if ``value`` is missing; returns whether it is there."""
        if value is None or value == "":
            self.add(path, "BASE_TYPE_REQUIRED", "This field is required")
            return False
        return True

    def raise_if_any(self) -> None:
        if self.tree:
            raise DiscordError(400, 50035, "Invalid Form Body", self.tree)
