"""The onboarding wizard: basics, members, quota, review, create; one htmx step at a time.

What was typed is kept in the session per wizard id (several wizards in several tabs do not mix), so Back,
a reload or a failed step never loses it. Each step is checked by its service (``check_basics``,
``check_members``, ``check_quotas``) with the errors beside the fields; nothing is created until
``onboard`` runs at the last step. GETs only read the session.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import push_url, reswap

from base.errors import Conflict, Invalid, ServiceError
from base.htmx import is_partial, render_page
from base.permissions import is_platform_admin
from projects.forms import BasicsForm, MemberFormSet, QuotaForm
from projects.grants import QuotaInput, auto_approve_limit
from projects.members import MemberInput, lookup_subjects
from projects.onboarding import ProjectDraft, check_basics, check_members, check_quotas, onboard
from projects.views.common import add_errors, finish
from projects.views.review import cluster_previews, draft_tenant, members_with_creator, region_room, tier_plans
from workloads.core.tiers import Tier

STEPS = ("basics", "members", "quotas", "review")
TITLES = {"basics": "Basics", "members": "Owners and members", "quotas": "Tiers and quota", "review": "Review"}
SESSION_KEY = "project_wizards"
KEEP = 5  # drafts per session: the oldest is dropped
FULL, PARTIAL = "projects/wizard.html", "projects/partials/wizard.html"
BASICS = ("name", "display_name", "team", "cost_center", "description")


# --- the draft in the session -------------------------------------------------------------------------


def _stored(request: HttpRequest, wizard: str) -> dict[str, Any]:
    return dict(request.session.get(SESSION_KEY, {}).get(wizard) or {})


def _store(request: HttpRequest, wizard: str, data: dict[str, Any]) -> None:
    drafts = dict(request.session.get(SESSION_KEY, {}))
    drafts.pop(wizard, None)
    drafts[wizard] = data
    request.session[SESSION_KEY] = dict(list(drafts.items())[-KEEP:])


def _forget(request: HttpRequest, wizard: str) -> None:
    drafts = dict(request.session.get(SESSION_KEY, {}))
    if drafts.pop(wizard, None) is not None:
        request.session[SESSION_KEY] = drafts


def _draft(data: dict[str, Any]) -> ProjectDraft:
    basics = data.get("basics", {})
    return ProjectDraft(
        **{name: basics.get(name, "") for name in BASICS},
        members=[MemberInput(**m) for m in data.get("members", []) if m.get("name", "").strip()],
        quotas={tier: QuotaInput(**q) for tier, q in data.get("quotas", {}).items()},
    )


def _reached(data: dict[str, Any]) -> int:
    return STEPS.index(data.get("reached", "basics"))


# --- forms of each step, bound to what was typed --------------------------------------------------------


def _forms(step: str, data: dict[str, Any], post: Any = None) -> dict[str, Any]:
    if step == "basics":
        form = BasicsForm(post if post is not None else None, initial=data.get("basics", {}))
        form.fields["name"].widget.attrs.update(
            {
                "hx-get": reverse("projects:name-check"),
                "hx-trigger": "input changed delay:300ms",
                "hx-target": "#name-check",
                "hx-swap": "innerHTML",
                "hx-sync": "this:replace",
            }
        )
        return {"form": form}
    if step == "members":
        rows = data.get("members", [])
        formset = MemberFormSet(post, prefix="members", initial=rows) if post is not None else _rows(rows)
        for i, form in enumerate(formset.forms):
            form.searchable(f"members-{i}-", f"suggest-{i}")
        return {"formset": formset}
    if step == "quotas":
        quotas = data.get("quotas", {})
        initial = {t.label: quotas.get(t.label, asdict(QuotaInput())) for t in Tier}
        return {"quota_forms": {t.label: QuotaForm(post, prefix=t.label, initial=initial[t.label]) for t in Tier}}
    return {}


def _rows(rows: list[dict[str, str]]) -> Any:
    """An unbound formset showing ``rows`` (at least one row to type into)."""
    formset = MemberFormSet(prefix="members", initial=rows or [{"kind": "user", "role": "developer"}])
    formset.extra = 0
    return formset


def _typed(step: str, forms: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """Keep what the step's forms hold (valid shape or not) in ``data``."""
    if step == "basics":
        form = forms["form"]
        form.is_valid()
        data["basics"] = {name: form.cleaned_data.get(name, form.data.get(name, "")) for name in BASICS}
    elif step == "members":
        formset = forms["formset"]
        formset.is_valid()
        data["members"] = [
            {
                "kind": f.cleaned_data.get("kind") or "user",
                "name": (f.cleaned_data.get("name") or "").strip(),
                "role": f.cleaned_data.get("role") or "developer",
            }
            for f in formset.forms
        ]
    elif step == "quotas":
        data["quotas"] = {}
        for tier, form in forms["quota_forms"].items():
            form.is_valid()
            data["quotas"][tier] = asdict(form.quota())
    return data


# --- checks per step --------------------------------------------------------------------------------------


def _check(step: str, draft: ProjectDraft, user: Any) -> None:
    if step == "basics":
        check_basics(draft)
    elif step == "members":
        check_members(draft, creator=user)
    elif step == "quotas":
        check_quotas(draft)


def _show_errors(step: str, forms: dict[str, Any], exc: ServiceError) -> list[str]:
    """Errors beside their fields; returns what belongs to no field (shown above the step)."""
    if step == "basics":
        add_errors(exc, {}, forms["form"])
        return []
    if step == "members":
        # Paths count the rows kept in the draft (blank rows are dropped); map them back to the forms.
        forms["formset"].is_valid()  # cleaned_data exists (create rebinds the stored rows, unchecked)
        kept = [f for f in forms["formset"].forms if (f.cleaned_data.get("name") or "").strip()]
        targets = {f"members[{i}]": form for i, form in enumerate(kept)}
        holder = BasicsForm({})  # collects the errors of no row ("A project needs at least one owner")
        add_errors(exc, targets, holder)
        return [str(e) for e in holder.non_field_errors()]
    if step == "quotas":
        targets = {f"quotas.{tier}": form for tier, form in forms["quota_forms"].items()}
        holder = BasicsForm({})
        add_errors(exc, targets, holder)
        return [str(e) for e in holder.non_field_errors()]
    return [exc.message]


def _step_of(exc: ServiceError) -> str:
    """The first step an ``onboard`` refusal points at (someone may have taken the name since)."""
    paths = [f.path for f in exc.fields] or [""]
    for step, prefix in (("basics", ""), ("members", "members"), ("quotas", "quotas")):
        if any(p.startswith(prefix) and (step != "basics" or p in BASICS) for p in paths):
            return step
    return "review"


# --- rendering --------------------------------------------------------------------------------------------


def _context(request: HttpRequest, wizard: str, step: str, data: dict[str, Any], **extra: Any) -> dict[str, Any]:
    draft = _draft(data)
    context = {
        "wizard": wizard,
        "step": step,
        "steps": [
            {"name": s, "title": TITLES[s], "number": i + 1, "reached": i <= _reached(data), "current": s == step}
            for i, s in enumerate(STEPS)
        ],
        "draft": draft,
        "step_errors": [],
        "creator_joins": not is_platform_admin(request.user),
        **extra,
    }
    if step == "members" and "formset" not in context:
        context.update(_forms("members", data))
    if step == "basics" and "form" not in context:
        context.update(_forms("basics", data))
    if step == "quotas":
        context.setdefault("quota_forms", _forms("quotas", data)["quota_forms"])
        rooms = region_room()
        context["tiers"] = [{"tier": t, "form": context["quota_forms"][t.label], "room": rooms[t]} for t in Tier]
        context["limit"] = None if is_platform_admin(request.user) else auto_approve_limit().formatted()
    if step == "review":
        plans = tier_plans(draft, request.user)
        context["plans"] = plans
        context["members"] = members_with_creator(draft, request.user)
        context["previews"] = cluster_previews(draft_tenant(draft, request.user, plans))
    return context


def _render(request: HttpRequest, context: dict[str, Any], *, status: int = 200, pushed: bool = False) -> HttpResponse:
    response = render_page(request, FULL, PARTIAL, context, status=status)
    if pushed and is_partial(request):
        push_url(response, _url(context["wizard"], context["step"]))
        reswap(response, "outerHTML show:window:top")  # a new step starts at the top of the page
    return response


def _url(wizard: str, step: str) -> str:
    return reverse("projects:wizard-step", args=[wizard, step])


# --- views ------------------------------------------------------------------------------------------------


@login_required
@require_GET
def wizard_start(request: HttpRequest) -> HttpResponse:
    """A new wizard: its id is only stored once the first step is sent (a GET never writes)."""
    return _render(request, _context(request, uuid.uuid4().hex[:12], "basics", {}))


@login_required
@require_http_methods(["GET", "POST"])
def wizard_step(request: HttpRequest, wizard: str, step: str) -> HttpResponse:
    if step not in STEPS:
        raise Http404("No such step.")
    data = _stored(request, wizard)
    if request.method == "GET":
        if STEPS.index(step) > _reached(data):
            return redirect(_url(wizard, STEPS[_reached(data)]))
        return _render(request, _context(request, wizard, step, data))
    go = request.POST.get("go", "next")
    forms = _forms(step, data, request.POST)
    data = _typed(step, forms, data)
    data.setdefault("reached", "basics")
    if go == "add" and step == "members":
        data["members"].append({"kind": "user", "name": "", "role": "developer"})
        _store(request, wizard, data)
        return _render(request, _context(request, wizard, step, data))
    if go.startswith("remove-") and step == "members":
        index = int(go.removeprefix("remove-")) if go.removeprefix("remove-").isdigit() else -1
        if 0 <= index < len(data["members"]):
            del data["members"][index]
        _store(request, wizard, data)
        return _render(request, _context(request, wizard, step, data))
    if step == "members":  # rows left blank are not members
        data["members"] = [m for m in data["members"] if m["name"]]
    _store(request, wizard, data)
    if go == "back" and STEPS.index(step) > 0:
        return _go(request, wizard, STEPS[STEPS.index(step) - 1], data)
    try:
        _check(step, _draft(data), request.user)
    except (Invalid, Conflict) as exc:
        notes = _show_errors(step, forms, exc)
        context = _context(request, wizard, step, data, step_errors=notes, **forms)
        return _render(request, context, status=exc.status)
    following = STEPS[min(STEPS.index(step) + 1, len(STEPS) - 1)]
    if STEPS.index(following) > _reached(data):
        data["reached"] = following
        _store(request, wizard, data)
    return _go(request, wizard, following, data)


def _members_post(data: dict[str, Any]) -> dict[str, str]:
    """The kept rows as a bound formset's data (blank rows dropped), so row ``i`` is ``members[i]``."""
    rows = data["members"]
    post = {"members-TOTAL_FORMS": str(len(rows)), "members-INITIAL_FORMS": str(len(rows))}
    for i, row in enumerate(rows):
        post.update({f"members-{i}-{key}": value for key, value in row.items()})
    return post


def _go(request: HttpRequest, wizard: str, step: str, data: dict[str, Any]) -> HttpResponse:
    if not is_partial(request):
        return redirect(_url(wizard, step))
    return _render(request, _context(request, wizard, step, data), pushed=True)


@login_required
@require_POST
def wizard_create(request: HttpRequest, wizard: str) -> HttpResponse:
    data = _stored(request, wizard)
    if not data or _reached(data) < STEPS.index("review"):
        return redirect(_url(wizard, "basics"))
    try:
        project = onboard(_draft(data), actor=request.user)
    except (Invalid, Conflict) as exc:
        step = _step_of(exc)
        forms = _forms(step, data, _bound(step, data))
        notes = _show_errors(step, forms, exc)
        context = _context(request, wizard, step, data, step_errors=notes, **forms)
        response = _render(request, context, status=exc.status)
        if is_partial(request):
            push_url(response, _url(wizard, step))
        return response
    _forget(request, wizard)
    pending = project.quota_requests.count()
    text = f"Created {project.name}; provisioning it on every cluster now."
    if pending:
        text += f" {pending} quota request{'s wait' if pending > 1 else ' waits'} for a platform admin."
    messages.success(request, text)
    return finish(request, reverse("projects:detail", args=[project.name]))


def _bound(step: str, data: dict[str, Any]) -> dict[str, str] | None:
    """The stored input as POST data, so a step re-shown after ``onboard`` refused has its errors bound."""
    if step == "basics":
        return dict(data.get("basics", {}))
    if step == "quotas":
        return {f"{tier}-{k}": v for tier, q in data.get("quotas", {}).items() for k, v in q.items()}
    if step == "members":
        return _members_post(data)
    return None


@login_required
@require_GET
def subject_lookup(request: HttpRequest) -> HttpResponse:
    """Users and groups matching what is typed in a member row (``row`` names the row's field prefix)."""
    query = request.GET.get("q") or next((v for k, v in request.GET.items() if k.endswith("name")), "")
    prefix = request.GET.get("row", "")
    return render(
        request,
        "projects/partials/subject_suggestions.html",
        {"subjects": lookup_subjects(query, limit=8), "prefix": prefix, "query": query.strip()},
    )


@login_required
@require_GET
def name_check(request: HttpRequest) -> HttpResponse:
    """The live check beside the name: DNS-safe and free, or why not (the service's own words)."""
    name = request.GET.get("name", "")
    problem = ""
    if name:
        try:
            check_basics(ProjectDraft(name=name, team="-", cost_center="-"))
        except (Invalid, Conflict) as exc:
            problem = "; ".join(f.message for f in exc.fields if f.path == "name") or exc.message
    return render(request, "projects/partials/name_check.html", {"name": name, "problem": problem})
