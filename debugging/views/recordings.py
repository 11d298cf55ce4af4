"""Shell recordings: the player's page and the asciicast file, for the project's owners and platform admins."""

from __future__ import annotations

from csp.decorators import csp_update
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from base.errors import NotFound
from base.permissions import is_platform_admin
from debugging.models import SessionKind, SessionRecording
from projects.models import Project, ProjectRole


def _recording(user: object, pk: int) -> SessionRecording:
    """A shell's recording, for its project's owners and platform admins; a 404 for anyone else."""
    found = SessionRecording.objects.select_related("session").filter(session_id=pk).first()
    if found is None or found.session.kind != SessionKind.SHELL:
        raise NotFound("No such recording.")
    if not is_platform_admin(user):
        project = Project.objects.visible_to(user).filter(name=found.session.project_name).first()
        if project is None or project.role_of(user) != ProjectRole.OWNER:
            raise NotFound("No such recording.")
    return found


@login_required
@csp_update({"script-src": ["'wasm-unsafe-eval'"]})  # the player's terminal emulator is WebAssembly
def recording_page(request: HttpRequest, pk: int) -> HttpResponse:
    found = _recording(request.user, pk)
    return render(request, "debugging/recording.html", {"rec": found, "s": found.session})


@login_required
def recording_cast(request: HttpRequest, pk: int) -> HttpResponse:
    """The asciicast v2 file (what the player loads; also a download)."""
    found = _recording(request.user, pk)
    response = HttpResponse(found.cast, content_type="application/x-asciicast; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="session-{found.session_id}.cast"'
    response["Cache-Control"] = "private, no-store"
    return response
