"""Causes from the members: what the workload's pods and containers say (an image that cannot be pulled, a container
that cannot be created, one that crash-loops, a pod no node takes) and a member that cannot be reached."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pincompute.diagnosis.model import Diagnosis, Evidence, State, Subject, Target
from pincompute.diagnosis.text import clause, names, sentence

Obj = Mapping[str, Any]
IMAGE_REASONS = frozenset({"ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull"})
CONFIG_REASONS = frozenset({"CreateContainerConfigError", "CreateContainerError", "RunContainerError"})
CRASH_REASONS = frozenset({"CrashLoopBackOff"})
_ORDER = (State.IMAGE_PULL, State.CONTAINER_CONFIG, State.CRASH_LOOP, State.POD_UNSCHEDULABLE)


@dataclass(frozen=True)
class Finding:
    state: State
    cluster: str
    pod: str
    container: str
    status: Obj  # the container status, or the PodScheduled condition


def _findings(evidence: Evidence) -> list[Finding]:
    found = []
    for cluster, pods in sorted(evidence.pods.items()):
        for pod in pods:
            meta, status = pod.get("metadata") or {}, pod.get("status") or {}
            if meta.get("deletionTimestamp"):
                continue
            name = str(meta.get("name") or "")
            statuses = [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]
            for cs in statuses:
                reason = str(((cs.get("state") or {}).get("waiting") or {}).get("reason") or "")
                state = (
                    State.IMAGE_PULL
                    if reason in IMAGE_REASONS
                    else State.CONTAINER_CONFIG
                    if reason in CONFIG_REASONS
                    else State.CRASH_LOOP
                    if reason in CRASH_REASONS
                    else None
                )
                if state is not None:
                    found.append(Finding(state, cluster, name, str(cs.get("name") or ""), cs))
            for condition in status.get("conditions") or []:
                if (condition.get("type"), condition.get("status"), condition.get("reason")) == (
                    "PodScheduled",
                    "False",
                    "Unschedulable",
                ):
                    found.append(Finding(State.POD_UNSCHEDULABLE, cluster, name, "", condition))
    return found


def _pods(findings: list[Finding]) -> str:
    count = len({(f.cluster, f.pod) for f in findings})
    return f"{count} pod" if count == 1 else f"{count} pods"


def pod_cause(evidence: Evidence) -> Diagnosis | None:
    """The first of the pods' problems in ``_ORDER``; the first pod (cluster, then name) speaks for the others."""
    findings = _findings(evidence)
    for state in _ORDER:
        same = [f for f in findings if f.state is state]
        if same:
            return _said(state, same[0], same, evidence)
    return None


def _said(state: State, first: Finding, same: list[Finding], evidence: Evidence) -> Diagnosis:
    where = f"on {first.cluster}" + (f" ({_pods(same)})" if len(same) > 1 else "")
    subject = Subject(first.cluster, first.pod, first.container)
    waiting = (first.status.get("state") or {}).get("waiting") or {}
    if state is State.IMAGE_PULL:
        image = clause(first.status.get("image") or "of container " + first.container, 120)
        reason = str(waiting.get("reason") or "")
        detail = clause(waiting.get("message") or "", 120)
        return Diagnosis(
            state,
            sentence(f"Image {image} cannot be pulled {where}: {reason}" + (f", {detail}" if detail else "")),
            f"Check the image name and tag of container {first.container} and that its registry is reachable; "
            "edit the spec or roll back to a revision whose image works.",
            Target.SPEC,
            subject,
        )
    if state is State.CONTAINER_CONFIG:
        detail = clause(waiting.get("message") or "no message", 140)
        return Diagnosis(
            state,
            sentence(f"Container {first.container} cannot be created {where}: {waiting.get('reason')}, {detail}"),
            "Create what it names (a Secret or ConfigMap in the project) or fix the reference in the spec.",
            Target.SPEC,
            subject,
        )
    if state is State.CRASH_LOOP:
        return _crash(first, where, subject, evidence)
    detail = clause(first.status.get("message") or "no node fits it", 140)
    return Diagnosis(
        state,
        sentence(f"Pod {first.pod} cannot be scheduled {where}: {detail}"),
        "Lower the pod's requests or ask a platform admin for nodes that fit; it starts by itself once one does.",
        Target.SPEC,
        subject,
    )


def _crash(first: Finding, where: str, subject: Subject, evidence: Evidence) -> Diagnosis:
    last = (first.status.get("lastState") or {}).get("terminated") or {}
    restarts = int(first.status.get("restartCount") or 0)
    code = last.get("exitCode")
    how = f"exit {code}" if code is not None else "exits"
    if last.get("reason") and last.get("reason") not in ("Error", "Completed"):
        how += f" ({clause(last['reason'], 40)})"
    line = evidence.last_lines.get(f"{first.cluster}/{first.pod}/{first.container}") or _last_line(last)
    said = f"Container {first.container} crash-loops {where}: {how} after {restarts} restarts"
    if line:
        said += f', last line "{clause(line, 120)}"'
    oom = last.get("reason") == "OOMKilled"
    return Diagnosis(
        State.CRASH_LOOP,
        sentence(said),
        "Raise the container's memory limit or fix what fills it, then roll out again."
        if oom
        else f"Read container {first.container}'s logs for why it exits, fix the command or its configuration, "
        "or roll back to the last revision that ran.",
        Target.LOGS,
        subject,
    )


def _last_line(terminated: Obj) -> str:
    """The last line of the termination message (the kubelet's copy of the log's end)."""
    lines = [line for line in str(terminated.get("message") or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def unreachable_cause(evidence: Evidence) -> Diagnosis | None:
    """A shard on a member the federation cannot reach: its pods' state is not known."""
    shards = (evidence.workload.get("status") or {}).get("shards") or []
    lost = [s for s in shards if s.get("unreachableSince")]
    if not lost:
        return None
    clusters = [str(s.get("cluster") or "") for s in lost]
    since = str(lost[0].get("unreachableSince"))
    replicas = sum(int(s.get("replicas") or 0) for s in lost)
    return Diagnosis(
        State.MEMBER_UNREACHABLE,
        sentence(f"Member {names(clusters)} cannot be reached since {since}: {replicas} replicas there are not known"),
        "Wait for the member to return or ask a platform admin about it; its pods may still run.",
        Target.CLUSTERS,
        Subject(cluster=clusters[0]),
    )
