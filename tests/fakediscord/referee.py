"""Discord's published contract (``bot.edge.contract``) as the referee of every request the bot sends: a
request it refuses is answered as Discord would (400 50035 with the field errors in Discord's words, or the
refusal the contract names), and kept in ``contract_violations`` so that the test that caused it fails.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from aiohttp import web

from bot.edge.contract import Contract, Violation

from .errors import ContractViolation, DiscordError, FormErrors
from .model import COMPONENTS_V2, FilePart
from .state import API, FakeState

contract = Contract.load()  # Discord's published contract, the referee of every request
# Over every fake of this process: requests checked against the contract, those that broke it, and those of
# them a test took because it sent them on purpose (the test session's summary prints it).
REFEREE: Counter[str] = Counter()


def _in_discords_words(violation: Violation) -> tuple[str, str]:
    """A contract violation as Discord's form error says it (its code and sentence), where the kind is one
    whose words are known; else the referee's own sentence."""
    limit = violation.limit
    if violation.span is not None:
        low, high = violation.span
        return "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length."
    match violation.kind:
        case "maxLength" | "maxItems" if limit is not None:
            return "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length."
        case "minLength" | "minItems" if limit is not None:
            return "BASE_TYPE_MIN_LENGTH", f"Must be {limit} or more in length."
        case "maximum" if limit is not None:
            return "NUMBER_TYPE_MAX", f"int value should be less than or equal to {limit}."
        case "minimum" if limit is not None:
            return "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {limit}."
        case "required":
            return "BASE_TYPE_REQUIRED", "This field is required"
        case "enum":
            return "BASE_TYPE_CHOICES", violation.message
    return "CONTRACT", violation.message


class Referee(FakeState):
    """Every request checked against Discord's published contract."""

    def _referee(self, request: web.Request, body: Any, parts: dict[str, FilePart]) -> DiscordError | None:
        """Discord's published contract (``bot.edge.contract``) applied to the request: each violation is kept
        in ``contract_violations`` (the test that caused it fails, see :meth:`check_healthy`) and the
        request is refused as Discord refuses a body it won't take (400 50035, the field errors in
        ``errors``), once the fake's other refusals (injected failures, rate limits, uploads) have had their
        turn."""
        if not self.referee or not request.path.startswith(API):  # the CDN's attachments are no API
            return None
        path = request.path.removeprefix(API)
        files = [len(part.data) for part in parts.values()]
        found = contract.check(request.method, path, body, files=files, payload_json=bool(parts))
        self.contract_checked += 1
        REFEREE["checked"] += 1
        message = body.get("data") if isinstance(body, dict) and "type" in body else body
        if isinstance(message, dict) and int(message.get("flags") or 0) & COMPONENTS_V2:
            REFEREE["layouts"] += 1  # a message sent or edited with the layout flag
        if not found:
            return None
        REFEREE["violations"] += 1
        self.contract_violations.append(ContractViolation(request.method, path, tuple(found), body))
        for violation in found:
            if violation.refusal is not None:
                status, code, message = violation.refusal
                return DiscordError(status, code, message)
        errors = FormErrors()
        for violation in found:
            errors.add(violation.path or ("_body",), *_in_discords_words(violation))
        return DiscordError(400, 50035, "Invalid Form Body", errors.tree)

    def take_violations(self, contains: str = "") -> list[ContractViolation]:
        """Remove and return the contract violations (whose text contains ``contains``): for tests that
        send what Discord would refuse on purpose."""
        taken = [v for v in self.contract_violations if contains in str(v)]
        self.contract_violations = [v for v in self.contract_violations if v not in taken]
        REFEREE["taken"] += len(taken)
        return taken
