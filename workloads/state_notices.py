"""Tell a project when the federation's decisions about its workloads and tiers need someone: a workload waits for
admission longer than ``WORKLOAD_ADMISSION_WAIT_SECONDS``, becomes Degraded or Failed, its pods crash-loop; a tier's
admitted use crosses 80% or 100% of its grant.

The federation decides each on the host; the portal sees it in the watch caches, so the same periodic pass as a
preemption (``workloads.tasks.tell_changes``) reads them and calls ``notifications.services.notify``. Each
notification's key is the workload's uid (or the project's tier) and the state; its occurrence names the state change
(the condition's transition time, the crash-looping pod, the level crossed), so a pass that sees it again tells
nobody twice and a later change folds in with a count. Workload texts carry the diagnosis' one-sentence cause
(``workloads.diagnosis``), as the preemption notice does."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from clusters import runtime
from notifications.models import Event, Severity
from notifications.services import forget_occurrence, notify
from pincompute.conditions import condition_of
from pincompute.diagnosis.model import State
from pincompute.federation.admission import RECLAIMED
from pincompute.kinds import KINDS
from pincompute.tiers import Tier
from projects.audience import members_of
from projects.grants import grants_of
from projects.headroom import project_usage
from projects.models import Project, ProjectState
from workloads.diagnosis import diagnosis_of

LEVELS = (100, 80)  # percent of a tier's grant, highest first
QUIET_PHASES = frozenset({"Running", "Succeeded", "Paused", "Stopped"})


def _since(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _waiting_since(obj: dict[str, Any]) -> str:
    """When the workload started waiting for admission ("" when it is admitted or was preempted: told elsewhere)."""
    admitted = condition_of(obj, "Admitted")
    if admitted.get("status") == "True" or admitted.get("reason") == RECLAIMED:
        return ""
    return str(admitted.get("lastTransitionTime") or (obj.get("metadata") or {}).get("creationTimestamp") or "")


def _states(obj: dict[str, Any], cause: Callable[[], Any]) -> list[tuple[Event, str]]:
    """(event, occurrence) for each state of the workload worth telling."""
    found: list[tuple[Event, str]] = []
    status = obj.get("status") or {}
    degraded = condition_of(obj, "Degraded")
    if status.get("phase") == "Failed":
        found.append((Event.WORKLOAD_FAILED, str(degraded.get("lastTransitionTime") or "failed")))
    elif degraded.get("status") == "True":
        found.append((Event.WORKLOAD_DEGRADED, str(degraded.get("lastTransitionTime") or "degraded")))
    waiting = _waiting_since(obj)
    started = _since(waiting) if waiting else None
    limit = timedelta(seconds=settings.WORKLOAD_ADMISSION_WAIT_SECONDS)
    if started is not None and timezone.now() - started > limit:
        found.append((Event.WORKLOAD_WAITING, waiting))
    if str(status.get("phase") or "") not in QUIET_PHASES or found:
        shown = cause()
        if shown.diagnosis.state is State.CRASH_LOOP:
            subject = shown.diagnosis.subject
            found.append((Event.WORKLOAD_CRASHLOOP, f"{subject.cluster}/{subject.pod}"))
    return found


WORDS = {
    Event.WORKLOAD_FAILED: ("failed", Severity.ERROR),
    Event.WORKLOAD_DEGRADED: ("is degraded", Severity.WARNING),
    Event.WORKLOAD_WAITING: ("has waited for admission too long", Severity.WARNING),
    Event.WORKLOAD_CRASHLOOP: ("has pods crash-looping", Severity.ERROR),
}


def _tell_workload(project: Project, obj: dict[str, Any]) -> int:
    meta = obj.get("metadata") or {}
    kind, name = str(obj.get("kind")), str(meta.get("name"))
    shown: list[Any] = []

    def cause() -> Any:
        if not shown:
            shown.append(diagnosis_of(project, obj, events=False))
        return shown[0]

    told = 0
    uid = meta.get("uid") or f"{project.namespace}/{kind}/{name}"
    for event, occurrence in _states(obj, cause):
        words, severity = WORDS[event]
        notify(event, recipients=members_of(project), project=project,
               text=f"{kind} {name} in {project.name} {words}: {cause().diagnosis.cause}",
               link=reverse("workloads:detail", args=(project.name, kind, name)),
               key=f"workload/{uid}/{event.value}", occurrence=occurrence, severity=severity)  # fmt: skip
        told += 1
    return told


def _percent(held: Any, grant: Any) -> int:
    """The highest share of the grant held, over cpu, memory, gpu and pods (0 for an empty grant)."""
    pairs = [(held.cpu_milli, grant.cpu_milli), (held.memory_bytes, grant.memory_bytes), (held.gpu, grant.gpu),
             (held.pods, grant.pods)]  # fmt: skip
    return max((100 * h // g for h, g in pairs if g > 0), default=0)


def _tell_tiers(project: Project) -> int:
    """Tell the owners when a tier's admitted use crosses 80% or 100% of its grant; below 80% it is re-armed."""
    usage = project_usage(project)
    if not usage.complete:
        return 0  # a cache not synced would under-count: decide on the next pass
    told = 0
    for tier, grant in grants_of(project).items():
        key = f"tier-usage/{project.pk}/{Tier(tier).value}"
        percent = _percent(usage.admitted.get(tier), grant)
        level = next((level for level in LEVELS if percent >= level), 0)
        if level == 0:
            forget_occurrence(key)
            continue
        notify(Event.TIER_USAGE, recipients=members_of(project, ("owner",)), project=project,
               text=f"{Tier(tier).value} in {project.name} holds {percent}% of its grant (past {level}%).",
               link=reverse("projects:quota", args=(project.name,)), key=key, occurrence=str(level),
               severity=Severity.ERROR if level == 100 else Severity.WARNING)  # fmt: skip
        told += 1
    return told


def tell_state_changes() -> int:
    """One pass over the host's workloads and every active project's tiers; how many states it told about (told
    before or not)."""
    host = runtime.host_cache()
    if host is None:
        return 0
    projects = {p.namespace: p for p in Project.objects.filter(state=ProjectState.ACTIVE)}
    told = 0
    for info in KINDS.values():
        for obj in host.list(info.plural):
            project = projects.get(str((obj.get("metadata") or {}).get("namespace")))
            if project is not None:
                told += _tell_workload(project, obj)
    for project in projects.values():
        told += _tell_tiers(project)
    return told
