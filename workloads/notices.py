"""Tell a project's members when the federation preempted one of its workloads (its Preemptible admission was
reclaimed for quota: the ``Admitted`` condition is ``False`` with reason ``Reclaimed``).

The federation decides it, on the host, without Django; the portal sees it in the host's watch cache. A periodic pass
(``workloads.tasks.tell_workload_changes``) reads every workload there and calls ``notifications.services.notify``
once per workload and reclaim: the key is the workload's uid, the occurrence the condition's transition time, so a
pass that sees it again tells nobody twice and a later reclaim of the same workload folds in with a count. The text
is the diagnosis' one-sentence cause (``workloads.diagnosis``)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from clusters import runtime
from notifications.models import Event, Severity
from notifications.services import notify
from pincompute.federation.admission import RECLAIMED
from pincompute.kinds import KINDS
from projects.audience import members_of
from projects.models import Project, ProjectState
from workloads.diagnosis import diagnosis_of


def _reclaimed(obj: dict[str, Any]) -> dict[str, Any] | None:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Admitted" and condition.get("status") == "False":
            return condition if condition.get("reason") == RECLAIMED else None
    return None


def tell_workload_changes() -> int:
    """One pass over the host's workloads; how many preempted ones it told about (told before or not)."""
    host = runtime.host_cache()
    if host is None:
        return 0
    projects = {p.namespace: p for p in Project.objects.filter(state=ProjectState.ACTIVE)}
    seen = 0
    for info in KINDS.values():
        for obj in host.list(info.plural):
            meta = obj.get("metadata") or {}
            project = projects.get(str(meta.get("namespace")))
            condition = _reclaimed(obj)
            if project is None or condition is None:
                continue
            seen += 1
            kind, name = str(obj.get("kind")), str(meta.get("name"))
            cause = diagnosis_of(project, obj, events=False).diagnosis.cause
            notify(
                Event.WORKLOAD_PREEMPTED,
                recipients=members_of(project),
                project=project,
                text=f"{kind} {name} in {project.name} was preempted: {cause}",
                link=reverse("workloads:detail", args=(project.name, kind, name)),
                key=f"workload/{meta.get('uid') or f'{project.namespace}/{kind}/{name}'}/preempted",
                occurrence=str(condition.get("lastTransitionTime") or ""),
                severity=Severity.WARNING,
            )
    return seen
