"""The one error taxonomy: every refusal a service or the core raises on purpose.

Each class says how the caller must react, so no caller needs a catch-all, and each maps once to an
HTTP status and a websocket close code (``base.errors`` holds the form / API / websocket mappings):

    Invalid        400  4400  the input is wrong; retrying the same input never succeeds
    Unauthenticated 401 4401  no session or token
    Forbidden      403  4403  signed in, but this role may not do this
    NotFound       404  4404  absent, or another tenant's (never say which)
    Conflict       409  4409  the state changed or forbids it now; re-read and retry
    Unprocessable  422  4422  reconciliation cannot progress until a human acts (Degraded condition)
    Unavailable    503  4503  a dependency is down or throttled; retry after ``retry_after`` seconds

``fields`` carries structured ``FieldError(path, message)`` values across every boundary, so nobody
parses a message string back apart. The core's own errors (SpecInvalid, QuotaExceeded,
NoFeasibleCluster, TemporaryError, PermanentError) are members of this family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Self

if TYPE_CHECKING:
    from pincompute.quota import QuotaViolation


@dataclass(frozen=True)
class FieldError:
    """One problem addressed by a path such as ``spec.containers[0].image`` ("" for the whole input)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ServiceError(Exception):
    """Base of the taxonomy; ``status``, ``code`` and ``close_code`` are the only mappings there are."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "error"
    close_code: ClassVar[int] = 4500
    default_message: ClassVar[str] = "The request failed."

    def __init__(self, message: str = "", *, fields: Sequence[FieldError] = ()) -> None:
        self.fields: tuple[FieldError, ...] = tuple(fields)
        self.message = message or "; ".join(str(f) for f in self.fields) or self.default_message
        super().__init__(self.message)

    @classmethod
    def on(cls, path: str, message: str) -> Self:
        """One problem with one field: ``Invalid.on("name", "is taken")``."""
        return cls(message, fields=[FieldError(path, message)])

    @classmethod
    def on_fields(cls, errors: Mapping[str, str], message: str = "") -> Self:
        """Several fields at once, path -> sentence."""
        return cls(message, fields=[FieldError(path, text) for path, text in errors.items()])


class Invalid(ServiceError):
    status, code, close_code = 400, "invalid", 4400
    default_message = "The request is invalid."


class Unauthenticated(ServiceError):
    status, code, close_code = 401, "not_authenticated", 4401
    default_message = "Sign in first."


class Forbidden(ServiceError):
    status, code, close_code = 403, "permission_denied", 4403
    default_message = "You may not do this."


class NotFound(ServiceError):
    status, code, close_code = 404, "not_found", 4404
    default_message = "Not found."


class Conflict(ServiceError):
    """Someone else changed the object first, or its state forbids this now; re-read and retry."""

    status, code, close_code = 409, "conflict", 4409
    default_message = "The request conflicts with the current state."


class Unprocessable(ServiceError):
    status, code, close_code = 422, "unprocessable", 4422
    default_message = "The request cannot be carried out."


class Unavailable(ServiceError):
    """A dependency is down or throttled; the same request may succeed after ``retry_after`` seconds."""

    status, code, close_code = 503, "unavailable", 4503
    default_message = "A dependency is unavailable; try again shortly."

    def __init__(self, message: str = "", *, fields: Sequence[FieldError] = (), retry_after: float = 5.0) -> None:
        super().__init__(message, fields=fields)
        self.retry_after = retry_after


# --- the core's own members of the family ---------------------------------------------------------


class SpecInvalid(Invalid):
    """The manifest is wrong; ``errors`` (same as ``fields``) lists every problem with its path."""

    def __init__(self, errors: Sequence[FieldError]) -> None:
        super().__init__("; ".join(str(e) for e in errors) or "invalid spec", fields=errors)

    @property
    def errors(self) -> list[FieldError]:
        return list(self.fields)


class TemporaryError(Unavailable):
    """A transient failure (apiserver unavailable, throttled); retry after ``delay`` seconds."""

    def __init__(self, message: str, delay: float = 5.0) -> None:
        super().__init__(message, retry_after=delay)

    @property
    def delay(self) -> float:
        return self.retry_after


class PermanentError(Unprocessable):
    """Reconciliation cannot progress until a human acts; report it as a Degraded condition."""


class QuotaExceeded(Forbidden):
    """The request does not fit the project's tier quota; ``violations`` say which tier and by how much."""

    code = "quota_exceeded"

    def __init__(self, violations: Sequence[QuotaViolation]) -> None:
        self.violations = list(violations)
        super().__init__(
            "; ".join(v.message for v in self.violations) or "quota exceeded",
            fields=[FieldError(f"{v.tier.value}.{v.resource}", v.message) for v in self.violations],
        )


class NoFeasibleCluster(Conflict):
    """No member cluster passed the filters; ``reasons`` maps each cluster to why it was rejected."""

    code = "no_feasible_cluster"

    def __init__(self, reasons: Mapping[str, Sequence[str]]) -> None:
        self.reasons: dict[str, list[str]] = {k: list(v) for k, v in sorted(reasons.items())}
        summary = "; ".join(f"{name}: {', '.join(r)}" for name, r in self.reasons.items())
        super().__init__(
            f"no member cluster can run this workload ({summary or 'no clusters'})",
            fields=[FieldError(f"clusters.{name}", ", ".join(r)) for name, r in self.reasons.items()],
        )


CoreError = ServiceError  # the operator's name for "any error the core raised on purpose"
