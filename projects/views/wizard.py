"""The onboarding wizard: basics, members, quota, review, create; one htmx step at a time.

What was typed is kept per wizard id, for the signed-in session, so Back, a reload or a failed step never
loses it. Each draft is a session row of its own in the session table (keyed by an HMAC of the browser's
session key and the wizard id), not a key of the browser's session: Django saves a session whole, so two tabs
sending steps of two wizards at the same moment would each save their own copy of it and the last would drop
the other's draft. A draft expires like a session and ``clearsessions`` removes it.

Each step is checked by its service (``check_basics``, ``check_members``, ``check_quotas``) with the errors
beside the fields. A step is only reached through the earlier ones: sending a later step (or create) runs
the earlier steps' checks first and sends the user back to the first one that refuses, with its errors;
nothing is created until ``onboard_project`` runs at the last step. GETs only read.

Every page of the wizard is rendered from the draft, and htmx keeps no snapshot of it (``hx-history="false"``:
a snapshot holds the inputs' attributes, not what was typed), so the browser's Back asks the server for the
step. Each step's form carries the version of the step's draft it shows: a stale page sent again (another tab,
an old snapshot) is refused with what is saved now instead of storing its fields over the draft.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.sessions.models import Session
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import push_url, reswap

from base.digits import whole_number
from base.errors import Conflict, Invalid, ServiceError
from base.htmx import is_partial, render_page
from base.permissions import is_platform_admin
from pincompute.tiers import Tier
from projects.forms import BasicsForm, MemberFormSet, QuotaForm
from projects.grants import QuotaInput, auto_approve_limit
from projects.members import MemberInput, lookup_subjects
from projects.onboarding import ProjectDraft, check_basics, check_members, check_quotas, onboard_project
from projects.views.common import add_errors, finish
from projects.views.review import cluster_previews, draft_tenant, members_with_creator, region_room, tier_plans

STEPS = ("basics", "members", "quotas", "review")
FORM_STEPS = ("basics", "members", "quotas")  # the steps whose form stores what was typed
TITLES = {"basics": "Basics", "members": "Owners and members", "quotas": "Tiers and quota", "review": "Review"}
FULL, PARTIAL = "projects/wizard.html", "projects/partials/wizard.html"
BASICS = ("name", "display_name", "team", "cost_center", "description")
VERSION_FIELD = "draft_version"  # the hidden field: the version of the step's draft the form was rendered from
MAX_ROW_DIGITS = 4  # a row index in go=remove-<i> (a formset holds at most a few thousand rows)
MAX_VERSION_DIGITS = 9
STALE = (
    "This page was out of date: this step was sent again since it was shown (from another tab, or before the "
    "browser's Back). This is what is saved now: check it and send it again."
)


# --- the draft: a session row of its own per wizard of a session --------------------------------------------


def _key(request: HttpRequest, wizard: str) -> str:
    """The draft's row: derived from the browser's session (secret, so the key cannot be guessed either)."""
    mac = salted_hmac("projects.wizard-draft", f"{request.user.pk}:{request.session.session_key}:{wizard}")
    return f"wizard{mac.hexdigest()}"[:40]  # django_session.session_key holds 40 characters


def _stored(request: HttpRequest, wizard: str) -> dict[str, Any]:
    row = Session.objects.filter(session_key=_key(request, wizard), expire_date__gt=timezone.now()).first()
    return dict(row.get_decoded()) if row is not None else {}


def _store(request: HttpRequest, wizard: str, data: dict[str, Any]) -> None:
    """Write this wizard's draft alone: another wizard's draft, sent at the same moment, is another row."""
    key, encoded = _key(request, wizard), Session.objects.encode(data)
    expires = timezone.now() + timedelta(seconds=settings.SESSION_COOKIE_AGE)
    if Session.objects.filter(session_key=key).update(session_data=encoded, expire_date=expires):
        return
    try:
        with transaction.atomic():
            Session.objects.create(session_key=key, session_data=encoded, expire_date=expires)
    except IntegrityError:  # the same wizard's first step, sent twice at the same moment: the last one wins
        Session.objects.filter(session_key=key).update(session_data=encoded, expire_date=expires)


def _forget(request: HttpRequest, wizard: str) -> None:
    Session.objects.filter(session_key=_key(request, wizard)).delete()


def _version(data: dict[str, Any], step: str) -> str:
    """How many times the step's draft was stored: the form shows it, a stale form sends an older one."""
    return str(data.get("versions", {}).get(step, 0))


def _bump(data: dict[str, Any], step: str) -> None:
    data["versions"] = {**data.get("versions", {}), step: int(_version(data, step)) + 1}


def _stale(request: HttpRequest, data: dict[str, Any], step: str) -> bool:
    """The form was rendered from an older draft of this step than the one stored. A form without the field
    (a script, an API client) is taken as it is, and so is a newer one: its draft expired or was created, and
    what the form holds is all there is."""
    sent = whole_number(request.POST.get(VERSION_FIELD, ""), max_digits=MAX_VERSION_DIGITS)
    return sent is not None and sent < int(_version(data, step))


def _row_index(go: str) -> int | None:
    """The row of ``go=remove-<i>``; None unless ``<i>`` is a short ASCII number (``²``, a fullwidth digit or 5,000
    digits are no row)."""
    return whole_number(go.removeprefix("remove-"), max_digits=MAX_ROW_DIGITS)


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
        # Bound without ``initial``: a row sent as it was stored must not count as "unchanged" (an unchanged extra
        # row is skipped, so sending the draft back as it is would have dropped it).
        formset = MemberFormSet(post, prefix="members") if post is not None else _rows(rows)
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


def _first_refusal(steps: tuple[str, ...], data: dict[str, Any], user: Any) -> tuple[str, ServiceError] | None:
    """The first of ``steps`` whose check refuses the draft, with the refusal; None when all pass.

    ``reached`` only says how far the stepper links go: a step is taken as passed only when its check passes
    now (the region may have filled up, a member may have been deleted since)."""
    draft = _draft(data)
    for step in steps:
        try:
            _check(step, draft, user)
        except (Invalid, Conflict) as exc:
            return step, exc
    return None


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
    """The first step an ``onboard_project`` refusal points at (someone may have taken the name since)."""
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
        "version": _version(data, step),
        "version_field": VERSION_FIELD,
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
@never_cache
@require_GET
def wizard_start(request: HttpRequest) -> HttpResponse:
    """A new wizard, at its own basics URL (so Back and a reload come back to this wizard, not a new one); its
    id is only stored once the first step is sent (a GET never writes)."""
    return redirect(_url(uuid.uuid4().hex[:12], "basics"))


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def wizard_step(request: HttpRequest, wizard: str, step: str) -> HttpResponse:
    if step not in STEPS:
        raise Http404("No such step.")
    data = _stored(request, wizard)
    if request.method == "GET":
        if STEPS.index(step) > _reached(data):
            return redirect(_url(wizard, STEPS[_reached(data)]))
        return _render(request, _context(request, wizard, step, data))
    if step in FORM_STEPS and _stale(request, data, step):
        return _render(request, _context(request, wizard, step, data, step_errors=[STALE]), status=409)
    go = request.POST.get("go", "next")
    forms = _forms(step, data, request.POST)
    data = _typed(step, forms, data)
    data.setdefault("reached", "basics")
    if step in FORM_STEPS:
        _bump(data, step)
    if go == "add" and step == "members":
        data["members"].append({"kind": "user", "name": "", "role": "developer"})
        _store(request, wizard, data)
        return _render(request, _context(request, wizard, step, data))
    if go.startswith("remove-") and step == "members":
        index = _row_index(go)
        if index is not None and index < len(data["members"]):
            del data["members"][index]
        _store(request, wizard, data)
        return _render(request, _context(request, wizard, step, data))
    if step == "members":  # rows left blank are not members
        data["members"] = [m for m in data["members"] if m["name"]]
    _store(request, wizard, data)
    if go == "back" and STEPS.index(step) > 0:
        return _go(request, wizard, STEPS[STEPS.index(step) - 1], data)
    refusal = _first_refusal(STEPS[: STEPS.index(step) + 1], data, request.user)
    if refusal is not None and refusal[0] != step:  # an earlier step does not pass: back to it, with its errors
        return _refused(request, wizard, *refusal, data)
    if refusal is not None:
        exc = refusal[1]
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


def _refused(request: HttpRequest, wizard: str, step: str, exc: ServiceError, data: dict[str, Any]) -> HttpResponse:
    """``step`` again, filled from the draft with the refusal's errors beside its fields, at its own URL."""
    forms = _forms(step, data, _bound(step, data))
    notes = _show_errors(step, forms, exc)
    context = _context(request, wizard, step, data, step_errors=notes, **forms)
    response = _render(request, context, status=exc.status)
    if is_partial(request):
        push_url(response, _url(wizard, step))
    return response


@login_required
@never_cache
@require_POST
def wizard_create(request: HttpRequest, wizard: str) -> HttpResponse:
    data = _stored(request, wizard)
    if not data:
        return redirect(_url(wizard, "basics"))
    # The steps' own checks first: create agrees with them (``onboard_project`` alone would turn a grant the quota
    # step refuses, beyond the region's headroom, into a pending request).
    refusal = _first_refusal(FORM_STEPS, data, request.user)
    if refusal is not None:
        return _refused(request, wizard, *refusal, data)
    if _reached(data) < STEPS.index("review"):  # every step passes, but the review was never shown
        data["reached"] = "review"
        _store(request, wizard, data)
        return _go(request, wizard, "review", data)
    try:
        project = onboard_project(_draft(data), actor=request.user)
    except (Invalid, Conflict) as exc:
        return _refused(request, wizard, _step_of(exc), exc, data)
    _forget(request, wizard)
    pending = project.quota_requests.count()
    text = f"Created {project.name}; provisioning it on every cluster now."
    if pending:
        text += f" {pending} quota request{'s wait' if pending > 1 else ' waits'} for a platform admin."
    messages.success(request, text)
    return finish(request, reverse("projects:detail", args=[project.name]))


def _bound(step: str, data: dict[str, Any]) -> dict[str, str] | None:
    """The stored input as POST data, so a step re-shown after ``onboard_project`` refused has its errors bound."""
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
