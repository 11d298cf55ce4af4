"""What every project page shares: finding the project the way tenancy allows, the viewer's role, service
errors put beside the fields of several forms at once, and numbers as people read them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django_htmx.http import HttpResponseClientRedirect

from base.errors import FieldError, Invalid, ServiceError, add_to_form
from base.htmx import is_partial
from base.permissions import is_platform_admin
from pincompute.grants import Allocation
from pincompute.quantity import Resources
from projects.access import ADMIN
from projects.models import Project, ProjectRole

GIB = 2**30
MIB = 2**20


def visible_project(request: HttpRequest, name: str) -> Project:
    """The project if the user may see it; 404 otherwise (another tenant's project is not disclosed)."""
    return get_object_or_404(Project.objects.visible_to(request.user), name=name)


def role_in(project: Project, user: Any) -> str | None:
    """``admin`` for platform admins, else the member's effective role (own or through a group)."""
    return ADMIN if is_platform_admin(user) else project.role_of(user)


def can_manage(role: str | None) -> bool:
    """Owners and platform admins change a project; developers and viewers read it."""
    return role in (ADMIN, ProjectRole.OWNER)


def add_errors(exc: ServiceError, targets: Mapping[str, forms.BaseForm], fallback: forms.BaseForm) -> None:
    """Put each field error of ``exc`` beside its field: a path ``<prefix>.<field>`` goes to
    ``targets[prefix]`` (``members[1].name``, ``quotas.reserved.cpu``), a field of ``fallback`` beside it,
    and anything else above ``fallback``'s fields (the message alone: it names what it is about)."""
    by_form: dict[str, list[FieldError]] = {}
    for error in exc.fields or (FieldError("", exc.message),):
        prefix, _, field = error.path.rpartition(".")
        if prefix in targets and field in targets[prefix].fields:
            by_form.setdefault(prefix, []).append(FieldError(field, error.message))
        elif error.path in fallback.fields:
            by_form.setdefault("", []).append(error)
        else:
            by_form.setdefault("", []).append(FieldError("", error.message))
    for prefix, errors in by_form.items():
        add_to_form(targets[prefix] if prefix else fallback, Invalid(fields=errors))


def finish(request: HttpRequest, url: str) -> HttpResponse:
    """After a create or archive: a full navigation, for htmx (HX-Redirect) as for a plain POST."""
    return HttpResponseClientRedirect(url) if is_partial(request) else redirect(url)


# --- numbers as people compare them ---------------------------------------------------------------------


def cores(milli: int) -> str:
    """``8``, ``0.5``, ``12.25`` cores (negative when over-granted)."""
    return f"{milli / 1000:.3f}".rstrip("0").rstrip(".") if milli % 1000 else str(milli // 1000)


def memory(num_bytes: int) -> str:
    """``32Gi``, ``1.5Gi``, ``512Mi``: binary units, at most two decimals."""
    if num_bytes == 0:
        return "0"
    for unit, size in (("Ti", 2**40), ("Gi", GIB), ("Mi", MIB), ("Ki", 1024)):
        if abs(num_bytes) >= size:
            text = f"{num_bytes / size:.2f}".rstrip("0").rstrip(".")
            return f"{text}{unit}"
    return str(num_bytes)


def shown(amounts: Allocation | Resources) -> dict[str, Any]:
    """Display strings (``cpu``, ``memory``, ``gpu``, ``pods`` when it has them) and raw numbers."""
    out: dict[str, Any] = {
        "cpu": cores(amounts.cpu_milli),
        "memory": memory(amounts.memory_bytes),
        "gpu": str(amounts.gpu),
        "cpu_milli": amounts.cpu_milli,
        "memory_bytes": amounts.memory_bytes,
        "negative": amounts.cpu_milli < 0 or amounts.memory_bytes < 0 or amounts.gpu < 0,
    }
    if isinstance(amounts, Allocation):
        out["pods"] = str(amounts.pods)
    return out


def percent(part: int, whole: int) -> int:
    """For progress bars: ``part`` of ``whole`` in whole percent, 0..100 (a zero grant is 100% when used)."""
    if whole <= 0:
        return 100 if part > 0 else 0
    return max(0, min(100, round(100 * part / whole)))
