"""While the dev platform starts, every full page says so above its content, linking the progress page.

Pages that read the clusters (the dashboard's health, clusters, workloads) are empty until the clusters are
registered; the banner says why instead of leaving the reader to guess. Inserted into the rendered page as
Django's debug toolbar inserts itself: dev only, and only into the portal's own page shell.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from base.htmx import is_partial
from devtools.startup import status

MAIN = b'<main id="main" class="app-content" tabindex="-1">'


class StartingBanner:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code != 200
            or response.streaming
            or not response.get("Content-Type", "").startswith("text/html")
            or is_partial(request)
            or (request.resolver_match is not None and request.resolver_match.url_name == "dev-progress")
        ):
            return response
        current = status.current()
        if not status.starting(current) or MAIN not in response.content:
            return response
        banner = render_to_string("devtools/partials/starting_banner.html", status.page_context(current), request)
        response.content = response.content.replace(MAIN, MAIN + banner.encode(), 1)
        return response
