"""The one htmx helper: full page or partial, and how a form POST is answered.

Every view with a partial renders through ``render_page`` (reads) or ``render_form`` (form posts), so
the rule is written once: an htmx request that swaps part of a page gets the partial; a plain request,
a boosted link or a history restore gets the full page, which includes the same partial.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

INLINE_ERROR_STATUS = 400  # static/src swaps 400/409/422 responses into the page (inline errors)


def is_partial(request: HttpRequest) -> bool:
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not getattr(htmx, "history_restore_request", False) and not getattr(htmx, "boosted", False)


def render_page(
    request: HttpRequest, full: str, partial: str, context: dict[str, Any], *, status: int = 200
) -> HttpResponse:
    """``partial`` for an htmx swap, ``full`` otherwise."""
    return render(request, partial if is_partial(request) else full, context, status=status)


def render_form(
    request: HttpRequest,
    full: str,
    partial: str,
    context: dict[str, Any],
    *,
    form: forms.BaseForm,
    success_url: str,
    error_status: int = INLINE_ERROR_STATUS,
) -> HttpResponse:
    """The answer to a form POST, decided by ``form.errors`` (including those ``add_to_form`` put there):

    - errors: the form again with each error beside its field, status ``error_status`` (400, or the
      refusal's own status such as 409), as a partial for htmx or as the full page;
    - saved, htmx: the partial, swapped in place;
    - saved, plain POST: a redirect to ``success_url`` (post/redirect/get: a reload does not resubmit).
    """
    if form.errors:
        return render_page(request, full, partial, context, status=error_status)
    if not is_partial(request):
        return redirect(success_url)
    return render(request, partial, context)
