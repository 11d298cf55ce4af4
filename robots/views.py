"""The project page's robot accounts section (owners and platform admins): htmx-loaded, it lists the robots,
creates one (its token's secret shown in the answer, once), rotates and revokes."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import ROBOT_GRANTS
from base.errors import Conflict, Invalid, add_to_form
from base.htmx import is_partial
from projects.access import visible_project
from projects.models import Project
from robots.services import create_robot, list_robots, max_robot_days, revoke_robot, robot_token, rotate_robot

PARTIAL = "robots/section.html"


class RobotForm(forms.Form):
    name = forms.CharField(max_length=40, help_text="e.g. deploy-bot")
    scopes = forms.MultipleChoiceField(
        choices=[(g, g) for g in ROBOT_GRANTS], widget=forms.CheckboxSelectMultiple, initial=["read"]
    )
    days = forms.IntegerField(min_value=1, required=False, help_text="Token lifetime in days (default: the maximum).")


def _context(project: Project, actor: Any, **extra: Any) -> dict[str, Any]:
    rows = [{"robot": r, "token": robot_token(r)} for r in list_robots(project, actor=actor)]
    return {"project": project, "rows": rows, "max_days": max_robot_days(), "form": RobotForm(), **extra}


def _answer(request: HttpRequest, project: Project, context: dict[str, Any], status: int = 200) -> HttpResponse:
    if not is_partial(request) and request.method == "POST" and "secret" not in context and status == 200:
        return redirect(reverse("projects:detail", args=[project.name]) + "#robots")
    return render(request, PARTIAL if is_partial(request) else "robots/page.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def section(request: HttpRequest, project: str) -> HttpResponse:
    found = visible_project(request.user, project)
    if request.method == "GET":
        return _answer(request, found, _context(found, request.user))
    form = RobotForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            robot, _, raw = create_robot(
                found, name=data["name"], scopes=list(data["scopes"]), days=data["days"], actor=request.user
            )
        except (Invalid, Conflict) as exc:
            add_to_form(form, exc)
        else:
            return _answer(request, found, _context(found, request.user, secret=raw, secret_of=robot.name))
    return _answer(request, found, _context(found, request.user, form=form), status=400)


@login_required
@require_POST
def rotate(request: HttpRequest, project: str, robot: str) -> HttpResponse:
    found = visible_project(request.user, project)
    rotated, _, raw = rotate_robot(found, robot, days=None, actor=request.user)
    return _answer(request, found, _context(found, request.user, secret=raw, secret_of=rotated.name))


@login_required
@require_POST
def revoke(request: HttpRequest, project: str, robot: str) -> HttpResponse:
    found = visible_project(request.user, project)
    revoke_robot(found, robot, actor=request.user)
    return _answer(request, found, _context(found, request.user))
