"""Pages' half of the error mapping: a ``ServiceError`` that escapes a view becomes the matching error page.

Not-found and permission refusals go through Django's own 404/403 handlers (the pages every other
refusal shows); the rest render ``service_error.html`` with their status. DRF views never get here:
``base.api.api_exception_handler`` answers them with the JSON error body first.

An htmx swap (``base.htmx.is_partial``) never gets a whole error page: htmx would put it, navigation and
all, into the card that asked (the pages swap 400/409/422 answers in, as inline errors). An error page
(this middleware's, Django's 400/403/404/500 handlers' for a refusal raised anywhere, ``base.bodies``' for a
body over the limit, a failed CSRF check) is answered instead with the same status, nothing to
swap (``HX-Reswap: none``) and the message as ``HX-Trigger: {"show-message": {...}}``, which
static/src/js/htmx-setup.js shows as a toast. What a view rendered itself is left as it is: a partial with a
form's errors, or a whole page with its errors that the page picks its part from (``hx-select``). A partial
redirected to sign in (the session ended) sends the browser there as a whole page (``HX-Redirect``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, TooManyFieldsSent
from django.core.handlers.exception import response_for_exception
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render, resolve_url
from django.template import loader
from django.utils.http import urlencode
from django_htmx.http import HttpResponseClientRedirect

from base.api import clipped, database_unavailable
from base.errors import MAX_REPORTED
from base.htmx import is_partial
from pincompute.errors import Forbidden, Invalid, NotFound, ServiceError, Unauthenticated, Unavailable

_AS_DJANGO: tuple[tuple[type[ServiceError], type[Exception]], ...] = (
    (NotFound, Http404),
    (Forbidden, PermissionDenied),
    (Unauthenticated, PermissionDenied),
    (Invalid, BadRequest),
)

MESSAGE_EVENT = "show-message"  # static/src/js/htmx-setup.js listens for it
_ERROR_ATTR = "_pinconsole_error"  # the exception a view raised, for the message of its answer

# What a partial answer says when the error carries no message meant for people (as htmx-setup.js words them).
_GENERIC = {
    400: "The request was not valid.",
    401: "Sign in again, then try again.",
    403: "You do not have permission to do that.",
    404: "That no longer exists.",
    405: "That cannot be done this way.",
    409: "Someone else changed this in the meantime. Reload and try again.",
    413: "What was sent is too large; nothing was saved.",
    429: "Too many requests. Wait a moment and try again.",
    500: "The server failed; the error was logged. Try again in a moment.",
    503: "A service this page depends on is unavailable. Try again in a few seconds.",
}


class ServiceErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code >= 400 and is_partial(request) and _is_error_page(response):
            return _partial_error(request, response)
        if response.status_code in (301, 302) and is_partial(request) and _to_sign_in(response):
            return _sign_in_again(request)
        return response

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if (unavailable := database_unavailable(exc)) is not None:
            setattr(request, _ERROR_ATTR, unavailable)
            return database_unavailable_page(unavailable)
        if not isinstance(exc, ServiceError):
            setattr(request, _ERROR_ATTR, exc)
            return None
        return service_error_page(request, exc)


def service_error_page(request: HttpRequest, exc: ServiceError) -> HttpResponse:
    """The page a refusal is answered with (Django's own 404/403/400 pages for those), its message kept for an htmx
    partial's toast."""
    setattr(request, _ERROR_ATTR, exc)
    for ours, django_exc in _AS_DJANGO:
        if isinstance(exc, ours):
            return response_for_exception(request, django_exc(exc.message))
    response = render(request, "service_error.html", {"error": exc}, status=exc.status)
    if isinstance(exc, Unavailable):
        response["Retry-After"] = str(max(1, round(exc.retry_after)))
    return response


def database_unavailable_page(exc: Unavailable) -> HttpResponse:
    """The 503 page for a database outage, rendered without the request: its context processors would read the
    user and their messages from the session, in the database."""
    page = loader.get_template("service_error.html").render({"error": exc})
    response = HttpResponse(page, status=exc.status)
    response["Retry-After"] = str(max(1, round(exc.retry_after)))
    return response


# The error pages: ours (templates/400, 403, 404, 500 and service_error.html) and Django's own (the DEBUG
# technical pages, the CSRF refusal). A page a view renders with its own errors carries neither, and text a
# user wrote cannot forge one: its quotes and "<" are escaped.
_ERROR_PAGE_MARKS = (b'data-error-page="true"', b'<meta name="robots" content="NONE,NOARCHIVE">')


def _is_error_page(response: HttpResponse) -> bool:
    if getattr(response, "streaming", False) or not response.get("Content-Type", "").startswith("text/html"):
        return False
    return any(mark in response.content for mark in _ERROR_PAGE_MARKS)


def _partial_error(request: HttpRequest, page: HttpResponse) -> HttpResponse:
    """The page's status, headers (``Retry-After``...) and cookies, the message to show and nothing to swap."""
    text = _message(request, page.status_code)
    response = HttpResponse(text, status=page.status_code, content_type="text/plain; charset=utf-8")
    for header, value in page.items():
        if header.lower() not in ("content-type", "content-length"):
            response[header] = value
    response.cookies = page.cookies
    response["HX-Reswap"] = "none"
    response["HX-Push-Url"] = "false"  # a refused request is no place to have been
    response["HX-Trigger"] = json.dumps({MESSAGE_EVENT: {"level": "danger", "text": text}})  # ASCII: \u escapes
    return response


def _message(request: HttpRequest, status: int) -> str:
    """The refusal's own message when it is meant for people; a 404 says only that nothing is there, as the
    404 page does (another tenant's object and a made-up name answer alike)."""
    exc = getattr(request, _ERROR_ATTR, None)
    if isinstance(exc, ServiceError) and exc.status == status and status != 404:
        extra = [str(f) for f in exc.fields[:MAX_REPORTED] if f.message not in exc.message]
        more = len(exc.fields) - MAX_REPORTED
        text = "; ".join([exc.message, *extra]) + (f" ({more} more problems not listed)" if more > 0 else "")
        return clipped(text)
    if status == 400 and isinstance(exc, TooManyFieldsSent):
        return "What was sent has too many fields; nothing was saved."
    return _GENERIC.get(status) or _GENERIC[500 if status >= 500 else 400]


def _to_sign_in(response: HttpResponse) -> bool:
    return urlsplit(response.get("Location", "")).path == resolve_url(settings.LOGIN_URL)


def _sign_in_again(request: HttpRequest) -> HttpResponse:
    """A partial whose session ended (expired, signed out in another tab): the sign-in page as a whole page, not
    swapped into the card, coming back to the page (not the partial) after signing in. htmx follows a redirect
    without telling the page, so it is told with ``HX-Redirect`` instead."""
    login = resolve_url(settings.LOGIN_URL)
    page = request.htmx.current_url_abs_path if getattr(request, "htmx", None) else None  # None: another origin
    return HttpResponseClientRedirect(f"{login}?{urlencode({'next': page})}" if page else login)
