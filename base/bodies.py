"""THE gate for request bodies: one size limit (``REQUEST_BODY_MAX_BYTES``) for every API write and page form,
enforced before anything parses the body, and no content coding the portal does not read.

Two halves, one rule:

- ``BodyLimit`` (ASGI, in front of Django in ``console.asgi``): a body whose ``Content-Length`` is over the limit is
  never passed on; one without (chunked) or longer than it said is counted as it arrives and cut at the limit.
  Django's handler gets an empty (or cut) body and the request is marked (``scope[OVER_LIMIT]``): no parser ever
  sees more than the limit, and the process never holds more than the limit per request. The rest of a refused
  body is read and dropped (up to ``DRAIN_BYTES``) so that the client, still sending, gets to read the 413.
- ``BodyGateMiddleware`` (Django, WSGI and ASGI alike; the innermost middleware, whose request half still runs
  before any view and any ``process_view`` hook, such as the CSRF check that reads a form): answers a marked
  request, or one whose ``Content-Length`` is over the limit (the WSGI servers read only what ``Content-Length``
  says), with 413; a ``Content-Encoding`` other than identity (gzip...) is 415. Under ``/api/`` the answer is the
  one JSON error body; a page gets the error page (an htmx form: the message as a toast, ``base.middleware``).

Django's own ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (form data only) is set to the same limit; DRF's parsers read whatever
the stream holds, which is why the gate sits in front of them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from base.api import error_body
from base.digits import whole_number
from base.middleware import service_error_page
from pincompute.errors import FieldError, ServiceError

OVER_LIMIT = "pinconsole.body_over_limit"  # the ASGI scope's mark: the body was cut (or never read) at the limit
BODY = "body"  # the field a refusal names
_IDENTITY = ("", "identity")
DRAIN_BYTES = 64 * 2**20  # of a refused body, read and dropped so that its sender sees the answer

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class TooLarge(ServiceError):
    """The body is over the limit: the same body never succeeds (413, RFC 9110)."""

    status, code, close_code = 413, "too_large", 4413


class UnsupportedEncoding(ServiceError):
    """A content coding (``Content-Encoding: gzip``) the portal does not decode (415, RFC 9110 section 15.5.16)."""

    status, code, close_code = 415, "unsupported_media_type", 4415


def limit() -> int:
    return int(settings.REQUEST_BODY_MAX_BYTES)


def size_text(size: int) -> str:
    """``524288`` as ``512 KiB``; ``1500`` as ``1500 bytes``."""
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale and size % (scale // 4) == 0:
            return f"{size / scale:g} {unit}"
    return f"{size} bytes"


def too_large() -> TooLarge:
    cap = limit()
    exact = "" if size_text(cap) == f"{cap} bytes" else f"{cap} bytes, "
    return TooLarge(
        f"The request body is over the limit of {size_text(cap)} ({exact}REQUEST_BODY_MAX_BYTES); "
        "nothing was read or saved.",
        fields=[FieldError(BODY, f"over the limit of {size_text(cap)}")],
    )


def _declared_length(headers: Any) -> int | None:
    for name, value in headers:
        if name.lower() == b"content-length":
            return whole_number(value.decode("latin-1"), max_digits=20)
    return None


class BodyLimit:
    """ASGI middleware: an HTTP request's body is passed on up to the limit, never further (see the module)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope = dict(scope)
        declared = _declared_length(scope.get("headers") or ())
        if declared is not None and declared > self.max_bytes:
            scope[OVER_LIMIT] = True
        await self.app(scope, _bounded(receive, scope, self.max_bytes), send)


_END = {"type": "http.request", "body": b"", "more_body": False}


def _bounded(receive: Receive, scope: Scope, max_bytes: int) -> Receive:
    """``receive``, ending the body where it passes ``max_bytes`` (or at once when ``scope`` is marked already):
    what is past the limit is read and dropped, never kept."""
    seen = 0
    ended = False

    async def bounded() -> dict[str, Any]:
        nonlocal seen, ended
        if ended:
            return await receive()
        if scope.get(OVER_LIMIT):
            ended = True
            await _drain(receive)
            return dict(_END)
        message = await receive()
        if message["type"] != "http.request":
            return message
        seen += len(message.get("body", b""))
        more = message.get("more_body", False)
        if seen > max_bytes:
            scope[OVER_LIMIT] = True
            ended = True
            if more:
                await _drain(receive)
            return dict(_END)
        ended = not more
        return message

    return bounded


async def _drain(receive: Receive) -> None:
    """Read and drop the rest of a refused body, up to ``DRAIN_BYTES``: a client still sending it would otherwise
    have its connection reset under it, before it reads the 413 (the server closes a connection with unread body)."""
    dropped = 0
    while dropped <= DRAIN_BYTES:
        message = await receive()
        if message["type"] != "http.request":
            return
        dropped += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def refusal(request: HttpRequest) -> ServiceError | None:
    """Why the gate refuses ``request``'s body, or None."""
    declared = whole_number(str(request.META.get("CONTENT_LENGTH") or ""), max_digits=20) or 0
    if getattr(request, "scope", {}).get(OVER_LIMIT) or declared > limit():
        return too_large()
    coding = request.headers.get("Content-Encoding", "").strip().lower()
    if coding not in _IDENTITY:
        return UnsupportedEncoding(
            f"Content-Encoding {coding[:40]!r} is not accepted: send the body unencoded.",
            fields=[FieldError("Content-Encoding", "only identity is accepted")],
        )
    return None


class BodyGateMiddleware:
    """Refuses a body over the limit (413) or in a content coding (415) before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refused = refusal(request)
        if refused is None:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            fields = [{"path": f.path, "message": f.message} for f in refused.fields]
            return JsonResponse(
                error_body(refused.status, refused.code, refused.message, fields), status=refused.status
            )
        return service_error_page(request, refused)
