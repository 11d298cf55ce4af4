"""THE mapping of a failed Kubernetes API call to the error taxonomy (``pincompute.errors``).

By the apiserver's ``Status`` body ``reason`` when it sends one it names here, else by the HTTP status:

    NotFound                   404   NotFound
    AlreadyExists, Conflict    409   Conflict (re-read and retry)
    Expired, Gone              410   Conflict (what was read is too old: re-read)
    Invalid, BadRequest   400, 422   Invalid, each of ``details.causes`` a ``FieldError``
    throttled, 5xx, transport        TemporaryError (an ``Unavailable``), Retry-After as its delay
    anything else (401, 403, ...)    PermanentError (an ``Unprocessable``: a human must act)

Every caller catches the taxonomy, never ``ApiException``: the operator (``kubeio.classify``), the portal's writes
to a cluster (``clusters.remote.guarded``, whose named policies turn this answer into a write's) and the host's
workload objects (``workloads.host``). Each puts its own ``what`` in front of the message.
"""

from __future__ import annotations

import json
from typing import Any

from kubernetes.client.exceptions import ApiException

from pincompute.errors import Conflict, FieldError, Invalid, NotFound, PermanentError, ServiceError, TemporaryError
from pincompute.kube.retry import describe, is_transient, retry_after

_BY_REASON: dict[str, type[ServiceError]] = {
    "NotFound": NotFound,
    "AlreadyExists": Conflict,
    "Conflict": Conflict,
    "Expired": Conflict,
    "Gone": Conflict,
    "Invalid": Invalid,
    "BadRequest": Invalid,
}
_BY_STATUS: dict[int, type[ServiceError]] = {404: NotFound, 409: Conflict, 410: Conflict, 400: Invalid, 422: Invalid}


def status_body(exc: ApiException) -> dict[str, Any]:
    """The apiserver's ``Status`` object; {} when the body is not one (a proxy's page, a truncated answer)."""
    try:
        body = json.loads(exc.body or "{}")
    except (TypeError, ValueError):
        return {}
    return body if isinstance(body, dict) else {}


def said(exc: ApiException) -> str:
    """What the apiserver said (the Status message, which names the field of a rejected object), else the reason."""
    return str(status_body(exc).get("message") or exc.reason or "")


def status_message(exc: ApiException) -> str:
    """The status, its reason and the Status message, not ApiException's header dump."""
    message = status_body(exc).get("message")
    return f"{exc.status} {exc.reason}: {message}" if message else f"{exc.status} {exc.reason}"


def causes(body: dict[str, Any]) -> list[FieldError]:
    """Each field the apiserver named (``details.causes``); none, for a refusal of the request as a whole (an
    invalid name in the path: ``(400) Name parameter invalid``)."""
    details = body.get("details")
    found = details.get("causes") if isinstance(details, dict) else None
    return [
        FieldError(str(c.get("field") or "document"), str(c.get("message") or ""))
        for c in found or []
        if isinstance(c, dict)
    ]


def service_error(exc: BaseException, what: str = "", *, delay: float = 5.0) -> ServiceError:
    """The taxonomy's error for ``exc`` (an ``ApiException`` or a transport error), its message ``what: ...``.

    ``delay``: the seconds a temporary failure waits when the apiserver sent no Retry-After."""
    prefix = f"{what}: " if what else ""
    if not isinstance(exc, ApiException):
        return TemporaryError(f"{prefix}{describe(exc)}", delay=delay)
    body = status_body(exc)
    message = f"{prefix}{status_message(exc)}"
    kind = _BY_REASON.get(str(body.get("reason") or "")) or _BY_STATUS.get(exc.status or 0)
    if kind is Invalid:
        return Invalid(message, fields=causes(body))
    if kind is not None:
        return kind(message)
    if is_transient(exc):
        hinted = retry_after(exc)
        return TemporaryError(message, delay=delay if hinted is None else hinted)
    return PermanentError(message)
