"""Typed errors mirroring the API's one error body:

    {"error": {"status": 400, "code": "invalid", "message": "...", "fields": [{"path": "...", "message": "..."}],
               "request_id": "..."}}

``error_from_response`` picks the class by status: 400 ``InvalidError`` (with ``fields``), 401
``Unauthenticated``, 403 ``Forbidden``, 404 ``NotFound``, 409 ``ConflictError`` (the version sent and the live
one), 429 ``RateLimited``, 503 ``Unavailable``, other 5xx ``ServerError``, anything else ``ApiError``. An
answer that is not the error body (a proxy's or Django's HTML page) has a short excerpt as its message: the page's
title, else its first words.
``ConnectionFailed`` is a request that got no answer (refused, reset, timed out) after the retries.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from pinconsole_sdk.models import ErrorDetail, FieldError


class PinConsoleError(Exception):
    """Every error this SDK raises."""


class ConfigError(PinConsoleError):
    """No URL or token, or a config file that cannot be read."""


class ConnectionFailed(PinConsoleError):
    """No answer from the portal (connection refused or reset, or a timeout), after the retries."""


class ApiError(PinConsoleError):
    """An error answer of the API: its status, code, message, field errors and request id."""

    status = 0

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "",
        fields: list[FieldError] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status
        self.message = message
        self.code = code
        self.fields = fields or []
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body

    def __str__(self) -> str:
        text = f"{self.status} {self.code}: {self.message}" if self.code else f"{self.status}: {self.message}"
        for f in self.fields:
            text += f"\n  {f}"
        return text


class InvalidError(ApiError):
    """400: the input is invalid; ``fields`` names each field (``spec.replicas``, ``metadata.name``, ...)."""

    status = 400


class Unauthenticated(ApiError):
    status = 401


class Forbidden(ApiError):
    """403: the role may not do this (a viewer's write), or over the project's grant (``quota_exceeded``)."""

    status = 403


class NotFound(ApiError):
    """404: absent, or another tenant's."""

    status = 404


class ConflictError(ApiError):
    """409: a stale ``If-Match`` (``sent_version`` is what was sent, ``live_version`` the live one), or a name
    that exists."""

    status = 409

    def __init__(self, message: str, *, sent_version: str | None = None, live_version: str | None = None, **kw: Any):
        super().__init__(message, **kw)
        self.sent_version = sent_version
        self.live_version = live_version


class RateLimited(ApiError):
    """429: over the per-user rate; ``retry_after`` is the seconds the server asked to wait."""

    status = 429


class ServerError(ApiError):
    """A 5xx other than 503."""

    status = 500


class Unavailable(ServerError):
    """503: the host cluster cannot be reached; ``retry_after`` as the server said."""

    status = 503


BY_STATUS: dict[int, type[ApiError]] = {
    400: InvalidError,
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    409: ConflictError,
    429: RateLimited,
    503: Unavailable,
}
_LIVE = re.compile(r"^is (\S+)$")


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds, or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


EXCERPT = 200  # characters of an answer that is not the error body (an HTML page): enough to tell what it is
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HIDDEN = re.compile(r"<(script|style|head)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """A short one-line summary of an answer that is not JSON: an HTML page's title (else its text without the
    markup), whitespace collapsed, cut to ``limit`` characters. Only the first 4 KiB are read (the title is
    there), which also bounds the regular expressions' time on a hostile answer."""
    head = text[:4096]
    if "<" in head and ">" in head:
        title = _TITLE.search(head)
        head = title.group(1) if title else _TAG.sub(" ", _HIDDEN.sub(" ", head))
        head = html.unescape(head)
    line = " ".join(head.split())
    return line if len(line) <= limit else line[: limit - 3].rstrip() + "..."


def error_from_response(
    status: int, body: Any, headers: Mapping[str, str] | None = None, *, sent_version: str | None = None
) -> ApiError:
    """The typed error of an answer: the one error body when it is one, the status and text otherwise."""
    headers = headers or {}
    retry_after = parse_retry_after(headers.get("Retry-After") or headers.get("retry-after"))
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        detail = ErrorDetail.from_dict(err)
        message, code, fields, request_id = detail.message, detail.code, detail.fields, detail.request_id
    else:
        text = body if isinstance(body, str) else json.dumps(body) if body is not None else ""
        message = excerpt(text) or f"HTTP {status}"  # an HTML page, a proxy's text, another API's JSON
        code, fields, request_id = "", [], None
    cls = BY_STATUS.get(status) or (ServerError if status >= 500 else ApiError)
    kw: dict[str, Any] = {
        "status": status,
        "code": code,
        "fields": fields,
        "request_id": request_id,
        "retry_after": retry_after,
        "body": body,
    }
    if cls is ConflictError:
        live = next((m.group(1) for f in fields if f.path == "version" and (m := _LIVE.match(f.message))), None)
        return ConflictError(message, sent_version=sent_version, live_version=live, **kw)
    return cls(message, **kw)
