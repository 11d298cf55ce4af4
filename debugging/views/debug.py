"""The pod page's Debug action: start a debug container (htmx form), show its progress, then its terminal.

The form posts to ``debug_start``; the answer is the container's panel, which polls ``debug_container`` while the
container starts and is replaced by the terminal (the shell partial, on the container's exec websocket) once it
runs. Refusals are the service's: a bad target or image is the form again with the message beside its field (400);
a viewer, a sidecar (403), another tenant's pod (404) or a finished one (409) are the error pages.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from base.errors import Invalid
from base.htmx import INLINE_ERROR_STATUS, is_partial, render_page
from debugging import services
from debugging.authz import PodRef, resolve_pod
from debugging.debug_containers import DebugContainer, allowed_images, debug_targets, find_debug_container
from debugging.shell.commands import AUTO
from debugging.views.common import websocket_urls

POLL_SECONDS = 1


def debug_form_context(ref: PodRef, container: str, errors: dict[str, str] | None = None) -> dict[str, object]:
    """What the pod page's Debug tab shows: the targets (the selected container first when it is one) and images."""
    targets = debug_targets(ref)
    picked = container if container in targets else (targets[0] if targets else "")
    return {"ref": ref, "debug_targets": targets, "debug_target": picked, "debug_images": allowed_images(),
            "debug_errors": errors or {}}  # fmt: skip


@login_required
@require_POST
def debug_start(request: HttpRequest, cluster: str, namespace: str, pod: str) -> HttpResponse:
    container, image = request.POST.get("container") or None, request.POST.get("image") or None
    try:
        ref, started = services.start_debug_container(
            request.user, cluster, namespace, pod, container=container, image=image
        )
    except Invalid as exc:
        ref = resolve_pod(request.user, cluster, namespace, pod, need_exec=True)
        context = debug_form_context(ref, container or "", {f.path: f.message for f in exc.fields})
        context["debug_image"] = image
        full, partial = "debugging/debug_page.html", "debugging/partials/debug_form.html"
        return render_page(request, full, partial, context, status=INLINE_ERROR_STATUS)
    if not is_partial(request):
        return redirect("debugging:debug-container", ref.cluster.name, ref.namespace, ref.name, started.name)
    return render(request, "debugging/partials/debug_container.html", _panel(ref, started), status=201)


@login_required
def debug_container(request: HttpRequest, cluster: str, namespace: str, pod: str, name: str) -> HttpResponse:
    """The debug container's panel: its progress while it starts, its terminal once it runs, how it ended."""
    ref, found = find_debug_container(request.user, cluster, namespace, pod, name)
    return render_page(
        request, "debugging/debug_page.html", "debugging/partials/debug_container.html", _panel(ref, found)
    )


def _panel(ref: PodRef, found: DebugContainer) -> dict[str, object]:
    return {
        "ref": ref,
        "debug": found,
        "container": found.name,
        "shell": AUTO,
        "shells": [AUTO, "sh"],
        "recorded": ref.project.record_shells,
        "poll_seconds": POLL_SECONDS,
        **websocket_urls(ref, found.name),
    }
