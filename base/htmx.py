"""One helper decides full page vs partial for htmx requests."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def is_partial(request: HttpRequest) -> bool:
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not getattr(htmx, "history_restore_request", False) and not getattr(htmx, "boosted", False)


def render_page(
    request: HttpRequest, full: str, partial: str, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    return render(request, partial if is_partial(request) else full, context, status=status)
