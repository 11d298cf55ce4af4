"""Error taxonomy shared by the portal (HTTP status) and the operator (retry policy).

Each exception says how the caller must react, so no caller needs a catch-all:
SpecInvalid -> 400, never retried; Conflict -> 409, re-read and retry; TemporaryError -> retry after
``delay``; PermanentError -> surface as a Degraded condition and stop retrying.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FieldError:
    """One problem in a submitted manifest, addressed by a path such as ``spec.containers[0].image``."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class CoreError(Exception):
    """Base of every error the core raises on purpose."""

    http_status: int = 500


class SpecInvalid(CoreError):
    """The manifest is wrong; retrying the same input can never succeed."""

    http_status = 400

    def __init__(self, errors: Sequence[FieldError]) -> None:
        self.errors: list[FieldError] = list(errors)
        super().__init__("; ".join(str(e) for e in self.errors) or "invalid spec")


class Conflict(CoreError):
    """Someone else changed the object first; re-read it and try again."""

    http_status = 409


class TemporaryError(CoreError):
    """A transient failure (apiserver unavailable, throttled); retry after ``delay`` seconds."""

    http_status = 503

    def __init__(self, message: str, delay: float = 5.0) -> None:
        self.delay = delay
        super().__init__(message)


class PermanentError(CoreError):
    """Reconciliation cannot progress until a human acts; report it as a Degraded condition."""

    http_status = 422


class QuotaExceeded(CoreError):
    """The request does not fit the project's tier quota; ``violations`` say which tier and by how much."""

    http_status = 403

    def __init__(self, violations: Sequence[Any]) -> None:
        self.violations = list(violations)
        super().__init__("; ".join(getattr(v, "message", str(v)) for v in self.violations))


class NoFeasibleCluster(CoreError):
    """No member cluster passed the filters; ``reasons`` maps each cluster to why it was rejected."""

    http_status = 409

    def __init__(self, reasons: Mapping[str, Sequence[str]]) -> None:
        self.reasons: dict[str, list[str]] = {k: list(v) for k, v in sorted(reasons.items())}
        summary = "; ".join(f"{name}: {', '.join(r)}" for name, r in self.reasons.items())
        super().__init__(f"no member cluster can run this workload ({summary or 'no clusters'})")
