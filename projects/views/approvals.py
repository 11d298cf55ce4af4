"""Platform admins' pages: the quota request queue (approve or reject with a reason, the decided history)
and the forced decrease of a grant (amounts, then a preview of the workloads that no longer fit, then
confirm). Everyone else gets the 403 page."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from base.errors import Conflict, Invalid
from base.htmx import is_partial, render_page
from base.permissions import require_platform_admin
from pincompute.grants import Allocation
from pincompute.tiers import Tier
from projects.forms import DecisionForm, ForcedDecreaseForm
from projects.grants import grant_of
from projects.models import Project, QuotaRequest, QuotaRequestState
from projects.quota import approve_request, force_decrease, pending_requests, preview_forced_decrease, reject_request
from projects.views.common import add_errors, finish, shown
from projects.views.review import region_room
from projects.views.sections import RESOURCES

QUEUE = ("projects/requests.html", "projects/partials/request_queue.html")
FORCE = ("projects/force_decrease.html", "projects/partials/force_decrease.html")


def _changes(before: Allocation, after: Allocation) -> list[tuple[str, str, str]]:
    b, a = shown(before), shown(after)
    return [(label, b[key], a[key]) for key, label in RESOURCES if b[key] != a[key]]


def _queue(*, forms: dict[int, DecisionForm] | None = None, notice: str = "") -> dict[str, Any]:
    rooms = region_room()
    pending = []
    for request in pending_requests():
        tier = Tier.parse(request.tier)
        before, after = Allocation.from_json(request.previous), Allocation.from_json(request.requested)
        pending.append(
            {
                "request": request,
                "tier": tier,
                "changes": _changes(before, after),
                "room": rooms[tier].headroom,
                "form": (forms or {}).get(request.pk) or DecisionForm(prefix=f"r{request.pk}"),
            }
        )
    decided = QuotaRequest.objects.exclude(state=QuotaRequestState.PENDING).select_related(
        "project", "requested_by", "decided_by"
    )
    history = [
        {
            "request": r,
            "tier": Tier.parse(r.tier),
            "changes": _changes(Allocation.from_json(r.previous), Allocation.from_json(r.requested)),
        }
        for r in decided.order_by("-decided_at", "-pk")[:50]
    ]
    return {"pending": pending, "history": history, "queue_notice": notice}


@login_required
@require_GET
def request_queue(request: HttpRequest) -> HttpResponse:
    require_platform_admin(request.user)
    return render_page(request, *QUEUE, _queue())


@login_required
@require_POST
def request_decide(request: HttpRequest, pk: int, decision: str) -> HttpResponse:
    """``approve`` (the reason is optional) or ``reject`` (a reason is required: the owners read it)."""
    require_platform_admin(request.user)
    if decision not in ("approve", "reject"):
        raise Http404("No such decision.")
    form = DecisionForm(request.POST, prefix=f"r{pk}")
    form.is_valid()
    reason = form.cleaned_data.get("reason", "")
    try:
        if decision == "approve":
            decided = approve_request(pk, actor=request.user, reason=reason)
            text = f"Approved #{decided.pk}: {decided.project.name} has its new {Tier.parse(decided.tier).value} grant."
        else:
            decided = reject_request(pk, actor=request.user, reason=reason)
            text = f"Rejected #{decided.pk} of {decided.project.name}."
    except (Invalid, Conflict) as exc:
        add_errors(exc, {}, form)
        context = _queue(forms={pk: form})
        if not any(p["request"].pk == pk for p in context["pending"]):  # decided meanwhile: its form is gone
            context["queue_error"] = exc.message
        return _queue_page(request, context, status=exc.status)
    if not is_partial(request):
        messages.success(request, text)
        return finish(request, reverse("projects:requests"))
    return _queue_page(request, _queue(notice=text))


def _queue_page(request: HttpRequest, context: dict[str, Any], *, status: int = 200) -> HttpResponse:
    """The queue; an htmx swap also updates the count in the navigation (out of band)."""
    return render_page(request, *QUEUE, {**context, "oob": is_partial(request)}, status=status)


# --- forced decrease ------------------------------------------------------------------------------------


def _force_context(project: Project, form: ForcedDecreaseForm, preview: Any = None) -> dict[str, Any]:
    grants = [(t, shown(grant_of(project, t))) for t in Tier]
    url = reverse("projects:force-decrease", args=[project.name])
    form.fields["tier"].widget.attrs.update({"hx-get": url, "hx-target": "#force", "hx-swap": "outerHTML"})
    context: dict[str, Any] = {"project": project, "form": form, "grants": grants, "preview": preview}
    if preview is not None:
        context["preview_rows"] = [
            {"key": key, "label": label, "current": shown(preview.current)[key], "new": shown(preview.new)[key],
             "usage": shown(preview.usage)[key],
             "short": getattr(preview.usage, _attr(key)) > getattr(preview.new, _attr(key))}
            for key, label in RESOURCES
        ]  # fmt: skip
        context["affected"] = [
            {"workload": w, "requests": shown(w.requests)} for w in preview.workloads
        ]  # fmt: skip
    return context


def _attr(key: str) -> str:
    return {"cpu": "cpu_milli", "memory": "memory_bytes"}.get(key, key)


@login_required
@require_http_methods(["GET", "POST"])
def force_decrease_page(request: HttpRequest, name: str) -> HttpResponse:
    """GET: choose the tier and the new amounts. POST ``go=preview``: the workloads that would no longer
    fit; ``go=confirm`` with the preview's token and a reason: the grant is lowered."""
    require_platform_admin(request.user)
    project = get_object_or_404(Project, name=name)
    if request.method == "GET":
        tier = next((t for t in Tier if t.label == request.GET.get("tier")), Tier.RESERVED)
        form = ForcedDecreaseForm(initial={"tier": tier.label, **grant_of(project, tier).formatted()})
        return render_page(request, *FORCE, _force_context(project, form))
    form = ForcedDecreaseForm(request.POST)
    form.is_valid()
    tier = next((t for t in Tier if t.label == form.cleaned_data.get("tier")), None)
    if tier is None:
        add_errors(Invalid.on("tier", "Choose a tier."), {}, form)
        return render_page(request, *FORCE, _force_context(project, form), status=400)
    preview = None
    try:
        preview = preview_forced_decrease(project, tier, form.quota())
        if request.POST.get("go") == "confirm":
            force_decrease(
                project,
                tier,
                form.quota(),
                actor=request.user,
                reason=form.cleaned_data.get("reason", ""),
                confirm=form.cleaned_data.get("confirm", ""),
            )
            messages.success(request, f"Lowered the {tier.value} grant of {project.name} to {preview.new.describe()}.")
            return finish(request, reverse("projects:detail", args=[project.name]) + "#quota")
    except (Invalid, Conflict) as exc:
        add_errors(exc, {}, form)
        status = exc.status
    else:
        status = 200
    if preview is not None:
        data = form.data.copy()
        data["confirm"] = preview.token  # what is confirmed is what was shown
        form = _rebound(form, data)
    return render_page(request, *FORCE, _force_context(project, form, preview), status=status)


def _rebound(form: ForcedDecreaseForm, data: Any) -> ForcedDecreaseForm:
    """The same input with the preview's token, keeping the errors already found."""
    fresh = ForcedDecreaseForm(data)
    fresh.is_valid()
    for field, errors in form.errors.items():
        for error in errors:
            fresh.add_error(None if field == "__all__" else field, error)
    return fresh
