"""The search page (``/search/?q=``) and the box's suggestions as you type (``/search/suggest/?q=``)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from base.errors import Invalid
from search import services

SUGGESTIONS = 8


@login_required
def search_page(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")
    context: dict[str, object] = {"query": query.strip()[: services.MAX_QUERY]}
    if query.strip():
        try:
            context["results"] = services.search(request.user, query, limit=services.MAX_LIMIT)
        except Invalid as exc:
            context["problem"] = exc.message
    return render(request, "search/page.html", context, status=400 if "problem" in context else 200)


@login_required
def suggestions(request: HttpRequest) -> HttpResponse:
    """The dropdown under the box: empty when nothing is typed, the best few matches otherwise."""
    query = request.GET.get("q", "").strip()
    context: dict[str, object] = {"query": query[: services.MAX_QUERY]}
    if query:
        try:
            context["results"] = services.search(request.user, query, limit=SUGGESTIONS)
        except Invalid as exc:
            context["problem"] = exc.message
    return render(request, "search/partials/suggestions.html", context)
