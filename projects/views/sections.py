"""Read models of the project page's sections (basics, members, quota, provisioning), each also the
context of its htmx partial. Reads only the database and the watch caches."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from clusters.models import Cluster
from pincompute.grants import Allocation
from pincompute.tiers import Tier
from projects.access import ADMIN
from projects.fit_now import fit_now
from projects.forms import EditBasicsForm, MemberForm, PodSecurityForm, QuotaChangeForm, RoleForm
from projects.headroom import QuotaOverview, TierOverview, quota_overview
from projects.lifecycle import EDITABLE
from projects.models import (
    ROLE_RANK,
    ClusterProvisioning,
    Project,
    ProjectRole,
    ProvisioningState,
    QuotaRequest,
)
from projects.tasks import retryable
from projects.views.common import GIB, can_manage, percent, shown
from projects.views.fit_section import fit_section
from projects.views.network_section import network_section
from projects.views.ownership_section import ownership_section
from projects.views.policy_section import policy_section

RESOURCES = (("cpu", "CPU"), ("memory", "Memory"), ("gpu", "GPU"), ("pods", "Pods"))


def basics(project: Project, *, form: Any = None, editing: bool = False, ps_form: Any = None) -> dict[str, Any]:
    return {
        "basics_form": form or EditBasicsForm(initial={name: getattr(project, name) for name in EDITABLE}),
        "editing": editing,
        "ps_form": ps_form or PodSecurityForm(initial={"pod_security": project.pod_security}),
    }


def members(
    project: Project,
    *,
    add_form: Any = None,
    row_errors: dict[str, str] | None = None,
    notice: str = "",
) -> dict[str, Any]:
    rows = []
    found = project.memberships.select_related("user", "group")
    for m in sorted(found, key=lambda m: (-ROLE_RANK.get(m.role, 0), m.subject)):
        kind, name = ("user", m.user.get_username()) if m.user_id else ("group", m.group.name)
        rows.append(
            {
                "membership": m,
                "kind": kind,
                "name": name,
                "key": f"{kind}:{name}",
                "label": (m.user.get_full_name() or "") if m.user_id else "",
                "form": RoleForm(initial={"role": m.role}, prefix=f"{kind}-{name}"),
                "error": (row_errors or {}).get(f"{kind}:{name}", ""),
            }
        )
    owners = sum(1 for r in rows if r["membership"].role == ProjectRole.OWNER)
    return {
        "member_rows": rows,
        "owner_count": owners,
        "add_form": (add_form or MemberForm(prefix="add")).searchable("add-", "suggest-add"),
        "members_notice": notice,
    }


# --- quota ------------------------------------------------------------------------------------------------


def _per_tier_chart(overview: QuotaOverview, resource: str, unit: str, scale: float, title: str) -> dict[str, Any]:
    """Grant (light, wide), admitted usage (dark) and running pods (thin) overlaid per tier, in tier colours
    (``dataset.tiers``: static/src/js/charts.js reads the colours from app.css)."""
    tiers = [t.tier for t in overview.tiers]

    def values(of: str) -> list[float]:
        return [round(getattr(getattr(t, of), resource) / scale, 2) for t in overview.tiers]

    def bars(label: str, of: str, alpha: float, width: float, order: int) -> dict[str, Any]:
        return {
            "label": label,
            "data": values(of),
            "tiers": [t.label for t in tiers],
            "alpha": alpha,
            "grouped": False,
            "barPercentage": width,
            "categoryPercentage": 0.9,
            "borderWidth": 1 if of == "grant" else 0,
            "order": order,
        }

    return {
        "type": "bar",
        "data": {
            "labels": [t.value for t in tiers],
            "datasets": [
                bars("Granted", "grant", 0.18, 0.9, 3),
                bars("Admitted usage", "usage", 0.85, 0.55, 2),
                bars("Running pods", "running", 0.45, 0.2, 1),
            ],
        },
        "options": {
            "unit": unit,
            "plugins": {"legend": {"display": False}, "title": {"display": True, "text": title}},
        },
    }


def _tier_card(t: TierOverview, form: Any) -> dict[str, Any]:
    grant, usage = t.grant.amounts(), t.usage.amounts()
    grant_shown, usage_shown, running_shown = shown(t.grant), shown(t.usage), shown(t.running)
    left = shown(t.region_headroom)
    rows = []
    for key, label in RESOURCES:
        rows.append(
            {
                "key": key,
                "label": label,
                "grant": grant_shown[key],
                "usage": usage_shown[key],
                "running": running_shown[key],
                "percent": percent(usage[key], grant[key]),
                "over": usage[key] > grant[key],
                "left": left.get(key, "—"),  # pods have no pool: no headroom
            }
        )
    return {
        "tier": t.tier,
        "rows": rows,
        "pending": t.pending,
        "clusters": [
            {
                "name": c.cluster,
                "capacity": shown(c.capacity),
                "requested": shown(c.requested),
                "left": shown(c.headroom),
            }
            for c in t.clusters
        ],
        "form": form,
    }


def _change_form(tier: Tier, grant: Allocation) -> QuotaChangeForm:
    return QuotaChangeForm(prefix=tier.label, initial=grant.formatted())


def _request_rows(project: Project) -> list[dict[str, Any]]:
    rows = []
    found = QuotaRequest.objects.filter(project=project).select_related("requested_by", "decided_by")[:20]
    for request in found:
        before, after = Allocation.from_json(request.previous), Allocation.from_json(request.requested)
        b, a = shown(before), shown(after)
        changes = [(label, b[key], a[key]) for key, label in RESOURCES if b[key] != a[key]]
        rows.append({"request": request, "tier": Tier.parse(request.tier), "changes": changes})
    return rows


def quota(
    project: Project, *, forms: dict[str, Any] | None = None, result: dict[str, Any] | None = None
) -> dict[str, Any]:
    overview = quota_overview(project)
    forms = forms or {}
    cards = [_tier_card(t, forms.get(t.tier.label) or _change_form(t.tier, t.grant)) for t in overview.tiers]
    fit = fit_section(fit_now(project))
    for card in cards:
        card["fit"] = fit["fit_tiers"][card["tier"].label]
    return {
        **fit,
        "quota_cards": cards,
        "cpu_chart": _per_tier_chart(overview, "cpu_milli", "cores", 1000, "CPU: grant, admitted usage, running"),
        "memory_chart": _per_tier_chart(overview, "memory_bytes", "GiB", GIB, "Memory: grant, admitted usage, running"),
        "gpu_chart": (
            _per_tier_chart(overview, "gpu", "GPUs", 1, "GPU: grant, admitted usage, running")
            if any(t.grant.gpu or t.usage.gpu for t in overview.tiers)
            else None
        ),
        "workloads": [{"workload": w, "requests": shown(w.request)} for w in overview.workloads],
        "usage_problems": overview.problems,
        "requests": _request_rows(project),
        "quota_result": result,
    }


# --- provisioning -----------------------------------------------------------------------------------------

SETTLED = {"ready", "failed", "removed"}


def provisioning(project: Project, *, watch: int = 0) -> dict[str, Any]:
    """One row per registered cluster: the record's state, whether it has caught up with the project's
    generation, and its last error. ``watch``: keep polling this many more times (after a retry)."""
    records = {r.cluster_id: r for r in ClusterProvisioning.objects.filter(project=project)}
    rows, now = [], timezone.now()
    for cluster in Cluster.objects.all():
        record = records.get(cluster.pk)
        state = record.state if record else ProvisioningState.PENDING
        behind = record is None or record.observed_generation < project.generation
        if state == ProvisioningState.READY and behind:
            state = "updating"
        if not project.is_active and state == ProvisioningState.READY:
            state = "removing"
        rows.append({"cluster": cluster, "record": record, "state": state, "retryable": retryable(record, now)})
    settled = all(r["state"] in SETTLED for r in rows)
    ready = sum(1 for r in rows if r["state"] == "ready")
    return {
        "provisioning_rows": rows,
        "provisioning_settled": settled,
        "provisioning_ready": ready,
        "provisioning_watch": max(0, watch),
        "provisioning_polling": not settled or watch > 0,
    }


def common(project: Project, role: str | None) -> dict[str, Any]:
    """What every section shows or hides controls by."""
    return {
        "project": project,
        "role": role,
        "can_manage": can_manage(role) and project.is_active,
        "is_admin": role == ADMIN,
        "can_retry": role in (ADMIN, ProjectRole.OWNER, ProjectRole.DEVELOPER),
    }


def page(project: Project, role: str | None, **given: dict[str, Any]) -> dict[str, Any]:
    """The whole page: every section, with the given ones (forms with errors, results) as given."""
    context = common(project, role)
    context.update(given.get("basics") or basics(project))
    context.update(given.get("members") or members(project))
    context.update(given.get("quota") or quota(project))
    context.update(given.get("provisioning") or provisioning(project))
    context.update(given.get("archive") or {})
    context.update(given.get("network") or network_section(project))
    context.update(given.get("ownership") or ownership_section(project))
    context.update(given.get("policy") or policy_section(project, role))
    return context
