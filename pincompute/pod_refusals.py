"""A member refusing a workload's pods (its Pod Security admission, its quota), read from what is left of it.

The controllers say it differently. The ReplicaSet controller sets ``ReplicaFailure`` and the Deployment copies it
(``status._replicated`` reads that). The Job, DaemonSet and StatefulSet controllers set no condition: their pod
control records a ``FailedCreate`` Event on the object (``Error creating: pods "x-" is forbidden: violates
PodSecurity ...``) and retries with backoff; a CronJob's refusals are on the Job of its run. The operator's own
creates (a PinPod's Pod) are refused in its face: a 403 whose message is the admission's.

An Event outlives what it was about (an hour by default) and a DaemonSet keeps its uid when its template changes,
so an Event counts only while the object still lacks pods and when it was seen again after the object's spec was
last written: a refusal of an earlier template, or one its controller has since got past, is not a refusal now.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from pincompute.translate.compare import is_subset

FAILED_CREATE = "FailedCreate"
# The Events the operator watches: a ReplicaSet's refusals reach its Deployment's ReplicaFailure already.
EVENT_FIELD_SELECTOR = f"reason={FAILED_CREATE},involvedObject.kind!=ReplicaSet"
_RBAC_DENIAL = re.compile(r'\bcannot [a-z]+ resource "')  # the authorizer's 403, not an admission's
# Admission answers that mean "not yet", not "no": the ServiceAccount admission refuses a pod while the namespace's
# default ServiceAccount, which the controller-manager makes moments after the namespace, does not exist yet. The
# controllers retry and get past it; taking it for a refusal would hold the workload until its spec changes.
_NOT_YET = ("error looking up service account",)


def says_not_yet(message: str) -> bool:
    """Whether an admission's refusal is one that passes on its own (a pod's ServiceAccount not made yet)."""
    return any(phrase in message for phrase in _NOT_YET)


def is_admission_refusal(status: int, message: str) -> bool:
    """A 403 from an admission (Pod Security, ResourceQuota, a webhook), not the operator's RBAC lacking a verb, nor
    an answer that passes on its own (``says_not_yet``)."""
    return status == 403 and not _RBAC_DENIAL.search(message) and not says_not_yet(message)


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def event_time(event: Mapping[str, Any]) -> datetime | None:
    """When an Event was last seen: its series (events/v1 recorders), else lastTimestamp (core/v1 recorders, which
    count repeats), else its eventTime or creation."""
    series = event.get("series") or {}
    for value in (
        series.get("lastObservedTime"),
        event.get("lastTimestamp"),
        event.get("eventTime"),
        (event.get("metadata") or {}).get("creationTimestamp"),
    ):
        found = _time(value)
        if found is not None:
            return found
    return None


def spec_written(obj: Mapping[str, Any]) -> datetime | None:
    """When the object's spec or metadata was last written (its managedFields outside subresources), else its
    creation."""
    metadata = obj.get("metadata") or {}
    times = [
        found
        for entry in metadata.get("managedFields") or []
        if not entry.get("subresource") and (found := _time(entry.get("time"))) is not None
    ]
    return max(times) if times else _time(metadata.get("creationTimestamp"))


def lacks_pods(obj: Mapping[str, Any]) -> bool:
    """The object's controller still owes pods: a Job with none running and no verdict, a DaemonSet with fewer
    pods of its template than nodes to run on."""
    status = obj.get("status") or {}
    if obj.get("kind") == "DaemonSet":
        return int(status.get("updatedNumberScheduled") or 0) < int(status.get("desiredNumberScheduled") or 0)
    finished = {c.get("type") for c in status.get("conditions") or [] if c.get("status") == "True"}
    return not status.get("active") and not finished & {"Complete", "Failed", "SuccessCriteriaMet", "FailureTarget"}


def refusal(obj: Mapping[str, Any], events: Iterable[Mapping[str, Any]]) -> str:
    """What the member said refusing ``obj``'s pods (the newest ``FailedCreate`` about it that still holds), else
    ""."""
    uid = (obj.get("metadata") or {}).get("uid")
    written = spec_written(obj)
    about = [
        (when, str(e.get("message") or ""))
        for e in events
        if e.get("reason") == FAILED_CREATE
        and (e.get("involvedObject") or {}).get("uid") == uid
        and (when := event_time(e)) is not None
        and (written is None or when >= written)
    ]
    if not about or not lacks_pods(obj):
        return ""
    newest = max(about)[1].removeprefix("Error creating: ")
    return "" if says_not_yet(newest) else newest


def current_run(cronjob: Mapping[str, Any], jobs: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The CronJob's newest Job made from its present template (an older template's run says nothing of it)."""
    template = (((cronjob.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}).get("template") or {}
    runs = [j for j in jobs if is_subset(template, ((j.get("spec") or {}).get("template") or {}))]
    return max(runs, key=lambda j: str((j.get("metadata") or {}).get("creationTimestamp") or ""), default=None)
