"""What a diagnosis reads (``Evidence``: what the portal's caches hold) and what it says (``Diagnosis``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pincompute.cluster_scheduling import ClusterCandidate
from pincompute.grants import Allocation
from pincompute.tiers import Tier

Obj = Mapping[str, Any]


class State(StrEnum):
    """A CamelCase word a program can switch on, in precedence order: the first that holds is the cause."""

    DELETING = "Deleting"
    INVALID_SPEC = "InvalidSpec"
    MEMBER_REFUSED = "MemberRefused"
    WAITING_FOR_QUOTA = "WaitingForQuota"
    WAITING_FOR_ADMISSION = "WaitingForAdmission"
    STOPPED = "Stopped"
    PAUSED = "Paused"
    NO_CLUSTER_FITS = "NoClusterFits"
    IMAGE_PULL = "ImagePullFailing"
    CONTAINER_CONFIG = "ContainerConfigError"
    CRASH_LOOP = "CrashLoop"
    POD_UNSCHEDULABLE = "PodUnschedulable"
    MEMBER_UNREACHABLE = "MemberUnreachable"
    CHANGE_WAITS = "ChangeWaitsForQuota"
    DEGRADED = "Degraded"
    PROGRESSING = "Progressing"
    SUCCEEDED = "Succeeded"
    RUNNING = "Running"


PRECEDENCE: tuple[State, ...] = tuple(State)
"""The order causes are looked for: deleting, then what keeps the workload from being admitted (an invalid spec,
a member's refusal, quota), what the user asked (stopped, paused), placement, then its pods (images, config,
crashes, scheduling on the member), an unreachable member, a change waiting for quota, and last the good states."""

SEVERITY: Mapping[State, str] = {
    State.DELETING: "waiting",
    State.INVALID_SPEC: "error",
    State.MEMBER_REFUSED: "error",
    State.WAITING_FOR_QUOTA: "waiting",
    State.WAITING_FOR_ADMISSION: "waiting",
    State.STOPPED: "ok",
    State.PAUSED: "ok",
    State.NO_CLUSTER_FITS: "error",
    State.IMAGE_PULL: "error",
    State.CONTAINER_CONFIG: "error",
    State.CRASH_LOOP: "error",
    State.POD_UNSCHEDULABLE: "error",
    State.MEMBER_UNREACHABLE: "error",
    State.CHANGE_WAITS: "waiting",
    State.DEGRADED: "error",
    State.PROGRESSING: "waiting",
    State.SUCCEEDED: "ok",
    State.RUNNING: "ok",
}


class Target(StrEnum):
    """Where the next step is taken; the portal turns it into a link (the library knows no URLs)."""

    NONE = ""
    SPEC = "spec"  # the workload's spec (edit)
    QUOTA = "quota"  # the project's quota
    LOGS = "logs"  # one container's logs (``subject``: cluster, pod, container)
    TIMELINE = "timeline"  # the workload's events and state changes
    REVISIONS = "revisions"  # roll back to an earlier revision
    CLUSTERS = "clusters"  # the member clusters (``subject``: cluster)


@dataclass(frozen=True)
class Subject:
    """What the next step is about, where it applies ("" when not)."""

    cluster: str = ""
    pod: str = ""
    container: str = ""


@dataclass(frozen=True)
class Diagnosis:
    """The state, the cause in one sentence with its numbers, and the next step in one sentence."""

    state: State
    cause: str
    next_step: str
    target: Target = Target.NONE
    subject: Subject = field(default_factory=Subject)

    @property
    def severity(self) -> str:
        """``ok``, ``waiting`` or ``error``."""
        return SEVERITY[self.state]


@dataclass(frozen=True)
class Evidence:
    """What the portal's caches already hold about one workload (every field optional but the host object).

    ``neighbours``: the project's other host workload objects (who holds the grant, the queue); ``grants``: the
    project's admission grant per tier (pods 0 read as no cap, as admission reads them); ``asks``: what this
    workload's spec claims now; ``candidates`` and ``rejected``: the member clusters and each one's filter and
    capacity reasons when nothing fits (``cluster_scheduling.place``); ``pods``: the workload's pods per member;
    ``events``: recent Events of the workload on the host and the members; ``last_lines``: the last log line per
    ``cluster/pod/container`` when one was cheap to read."""

    workload: Obj
    neighbours: Sequence[Obj] = ()
    grants: Mapping[Tier, Allocation] = field(default_factory=dict)
    asks: Allocation | None = None
    candidates: Sequence[ClusterCandidate] = ()
    rejected: Mapping[str, Sequence[str]] = field(default_factory=dict)
    pods: Mapping[str, Sequence[Obj]] = field(default_factory=dict)
    events: Sequence[Obj] = ()
    last_lines: Mapping[str, str] = field(default_factory=dict)
