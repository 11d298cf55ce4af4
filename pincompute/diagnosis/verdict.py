"""``diagnose``: the first cause in ``PRECEDENCE`` that holds, for any evidence (never raises on odd input)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pincompute.conditions import condition_of
from pincompute.diagnosis.admission import admission_cause, change_cause
from pincompute.diagnosis.model import Diagnosis, Evidence, State, Target
from pincompute.diagnosis.placement import placement_cause
from pincompute.diagnosis.pods import pod_cause, unreachable_cause
from pincompute.diagnosis.text import clause, sentence
from pincompute.federation.refusal import MEMBER_REFUSED

Obj = Mapping[str, Any]
INVALID_REASONS = frozenset({"InvalidSpec", "ProjectMismatch"})


def _deleting(evidence: Evidence) -> Diagnosis | None:
    if not (evidence.workload.get("metadata") or {}).get("deletionTimestamp"):
        return None
    shards = len((evidence.workload.get("status") or {}).get("shards") or [])
    return Diagnosis(
        State.DELETING,
        sentence(f"Being deleted: the federation removes its {shards} shard(s) from the members first"),
        "Nothing to do: it disappears once every member has removed its shard.",
    )


def _invalid(evidence: Evidence) -> Diagnosis | None:
    obj = evidence.workload
    admitted, degraded = condition_of(obj, "Admitted"), condition_of(obj, "Degraded")
    phase = str((obj.get("status") or {}).get("phase") or "")
    if admitted.get("reason") in INVALID_REASONS:
        message = admitted.get("message")
    elif phase == "Invalid" or degraded.get("reason") in INVALID_REASONS:
        message = degraded.get("message") or condition_of(obj, "Scheduled").get("message")
    else:
        return None
    return Diagnosis(
        State.INVALID_SPEC,
        sentence(f"The spec is refused by the platform: {clause(message or 'no message')}"),
        "Fix the fields it names in the spec, or roll back to a revision that was accepted.",
        Target.SPEC,
    )


def _refused(evidence: Evidence) -> Diagnosis | None:
    obj = evidence.workload
    refusal = condition_of(obj, MEMBER_REFUSED)
    admitted = condition_of(obj, "Admitted")
    if refusal.get("status") != "True" and admitted.get("reason") != MEMBER_REFUSED:
        return None
    message = refusal.get("message") or admitted.get("message") or "no message"
    return Diagnosis(
        State.MEMBER_REFUSED,
        sentence(f"A member refuses to create its pods: {clause(message)}"),
        "Change the spec so the member accepts its pods (the message names the policy or limit).",
        Target.SPEC,
    )


def _operations(evidence: Evidence) -> Diagnosis | None:
    operations = (evidence.workload.get("spec") or {}).get("operations") or {}
    if not isinstance(operations, Mapping):
        return None
    if operations.get("stopped"):
        return Diagnosis(State.STOPPED, "Stopped on request: it runs no pods.", "Start it to run it again.")
    if operations.get("paused"):
        return Diagnosis(State.PAUSED, "Paused on request: scaled to zero pods.", "Resume it to run it again.")
    return None


def _replicas(obj: Obj) -> tuple[int, int]:
    status, spec = obj.get("status") or {}, obj.get("spec") or {}
    ready = _int(status.get("readyReplicas"))
    desired = _int(spec.get("replicas")) if spec.get("replicas") is not None else _int(status.get("replicas"))
    return ready, desired


def _int(value: Any) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def _latest_warning(evidence: Evidence) -> Obj | None:
    warnings = [e for e in evidence.events if e.get("type") == "Warning"]
    return max(warnings, key=_event_time) if warnings else None


def _event_time(event: Obj) -> str:
    return str(
        event.get("lastTimestamp")
        or event.get("eventTime")
        or (event.get("metadata") or {}).get("creationTimestamp")
        or ""
    )


def _degraded(evidence: Evidence) -> Diagnosis | None:
    obj = evidence.workload
    degraded = condition_of(obj, "Degraded")
    failed = [s for s in (obj.get("status") or {}).get("shards") or [] if s.get("state") == "Failed"]
    if degraded.get("status") != "True" and not failed:
        return None
    if failed:
        message = f"shard on {failed[0].get('cluster')} failed, {clause(failed[0].get('message') or 'no message')}"
    else:
        message = f"{degraded.get('reason') or 'Degraded'}, {clause(degraded.get('message') or 'no message')}"
    return Diagnosis(
        State.DEGRADED,
        sentence(f"Degraded: {message}"),
        "Read the timeline for the events that led here; roll back if a change caused it.",
        Target.TIMELINE,
    )


def _rolling(evidence: Evidence) -> Diagnosis | None:
    obj = evidence.workload
    phase = str((obj.get("status") or {}).get("phase") or "")
    ready, desired = _replicas(obj)
    if phase == "Succeeded":
        return Diagnosis(State.SUCCEEDED, "Succeeded: every run completed.", "Nothing to do.")
    if phase == "Running" and ready >= desired:
        clusters = [str(s.get("cluster")) for s in (obj.get("status") or {}).get("shards") or [] if s.get("cluster")]
        where = f" on {', '.join(clusters)}" if clusters else ""
        return Diagnosis(
            State.RUNNING, sentence(f"Running: {ready} of {desired} replicas ready{where}"), "Nothing to do."
        )
    said = f"Rolling out: {ready} of {desired} replicas ready"
    warning = _latest_warning(evidence)
    if warning is not None:
        said += f", latest warning {warning.get('reason') or 'Warning'}: {clause(warning.get('message') or '', 120)}"
    return Diagnosis(
        State.PROGRESSING,
        sentence(said),
        "Wait for the rollout; if it does not move, read the timeline's events.",
        Target.TIMELINE,
    )


CAUSES: tuple[Callable[[Evidence], Diagnosis | None], ...] = (
    _deleting,
    _invalid,
    _refused,
    admission_cause,
    _operations,
    placement_cause,
    pod_cause,
    unreachable_cause,
    change_cause,
    _degraded,
)


def diagnose(evidence: Evidence) -> Diagnosis:
    """Why the workload is (not) running: the first cause of ``CAUSES`` (``PRECEDENCE``'s order) that holds."""
    for cause in CAUSES:
        found = cause(evidence)
        if found is not None:
            return found
    found = _rolling(evidence)
    assert found is not None
    return found
