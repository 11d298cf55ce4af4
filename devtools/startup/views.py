from django.http import HttpRequest, HttpResponse

from base.htmx import render_page
from devtools.startup import status


def progress(request: HttpRequest) -> HttpResponse:
    """Open to anyone who reaches the dev portal (loopback unless --allow-remote), signed in or not: it is the
    page the terminal points a newcomer to before the first sign-in. Polls itself while the platform starts."""
    context = status.page_context(status.current())
    return render_page(request, "devtools/progress.html", "devtools/partials/progress.html", context)
