"""Why a workload is (not) running, for the page, the lists, the API and the CLI: ``pincompute.diagnosis.diagnose``
fed from what the portal's caches already hold (never an apiserver per request).

The evidence: the host object and the project's other host objects (who holds the grant, the queue), the project's
grant (``projects.grants``), the claim its spec makes now, the members' pods of the workload, and (on the page)
its recent Events; when it is Unschedulable, placement run again as the federation runs it
(``cluster_scheduling.place`` over the host's ``MemberCluster`` objects and what is placed, as the preview does) for
each cluster's reason. The last log line is the kubelet's copy in the container's termination message: reading logs
is not cheap enough for a page that polls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from clusters import runtime
from pincompute.cluster_scheduling import ClusterCandidate, place
from pincompute.diagnosis import Diagnosis, Evidence, Target, diagnose
from pincompute.errors import NoFeasibleCluster, SpecInvalid
from pincompute.federation.admission import claim_of, created_at
from pincompute.federation.members import candidate_of
from pincompute.federation.propagation import placement_request
from pincompute.grants import Allocation
from pincompute.kinds import KINDS, MEMBER_CLUSTER
from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL
from pincompute.specs import parse
from pincompute.tenancy import admission_grant
from pincompute.tiers import Tier
from projects.grants import grants_for, grants_of
from projects.models import Project
from workloads.preview import placed_usage
from workloads.reads import Row
from workloads.submission import profile
from workloads.timeline import host_events, member_events, siblings_of

Obj = dict[str, Any]
_LABELS = {
    Target.SPEC: "The spec",
    Target.QUOTA: "The project's quota",
    Target.LOGS: "The pod's logs and shell",
    Target.TIMELINE: "The timeline",
    Target.REVISIONS: "Revisions",
    Target.CLUSTERS: "The cluster",
}


@dataclass(frozen=True)
class Shown:
    """A diagnosis as the portal shows it: the library's, with the next step's link resolved."""

    diagnosis: Diagnosis
    link: str

    @property
    def state(self) -> str:
        return self.diagnosis.state.value

    @property
    def severity(self) -> str:
        return self.diagnosis.severity

    @property
    def link_label(self) -> str:
        return _LABELS.get(self.diagnosis.target, "")

    def as_json(self) -> dict[str, Any]:
        d = self.diagnosis
        subject = {k: v for k, v in vars(d.subject).items() if v}
        return {"state": d.state.value, "severity": d.severity, "cause": d.cause, "nextStep": d.next_step,
                "target": d.target.value, "subject": subject, "link": self.link}  # fmt: skip


def diagnosis_of(
    project: Project, obj: Obj, *, grants: Mapping[Tier, Allocation] | None = None, events: bool = True
) -> Shown:
    """The diagnosis of host object ``obj`` of ``project``; ``grants`` (as ``projects.grants.grants_for`` reads
    them) spares a list one query per project; ``events=False`` skips the Events (the lists)."""
    host = runtime.host_cache()
    meta = obj.get("metadata") or {}
    kind, name, namespace = str(obj.get("kind")), str(meta.get("name")), project.namespace
    neighbours = [
        o
        for info in KINDS.values()
        for o in (host.list(info.plural, namespace) if host is not None else [])
        if (o.get("kind"), (o.get("metadata") or {}).get("name")) != (kind, name)
    ]
    granted = grants if grants is not None else grants_of(project)
    workload = _parsed(obj)
    candidates: list[ClusterCandidate] = []
    rejected: dict[str, list[str]] = {}
    if _unschedulable(obj) and workload is not None and host is not None:
        candidates, rejected = _placement(workload, obj, host)
    evidence = Evidence(
        obj,
        neighbours=neighbours,
        grants={tier: admission_grant(grant) for tier, grant in granted.items()},
        asks=_asks(workload, obj),
        candidates=candidates,
        rejected=rejected,
        pods=_pods(kind, namespace, name),
        events=_events(obj, host, namespace) if events else (),
    )
    found = diagnose(evidence)
    return Shown(found, link_of(found, project, kind, name))


def link_of(found: Diagnosis, project: Project, kind: str, name: str) -> str:
    """The page where the next step is taken ("" when there is none)."""
    args = (project.name, kind, name)
    subject = found.subject
    if found.target is Target.SPEC:
        return reverse("workloads:spec", args=args)
    if found.target is Target.QUOTA:
        return reverse("projects:quota", args=(project.name,))
    if found.target is Target.LOGS and subject.cluster and subject.pod:
        return reverse("debugging:pod", args=(subject.cluster, project.namespace, subject.pod))
    if found.target is Target.REVISIONS:
        return reverse("workloads:revisions", args=args)
    if found.target is Target.CLUSTERS and subject.cluster:
        return reverse("clusters:detail", args=(subject.cluster,))
    if found.target in (Target.TIMELINE, Target.LOGS, Target.CLUSTERS):
        return reverse("workloads:timeline", args=args)
    return ""


def _parsed(obj: Obj) -> Any:
    try:
        return parse({key: obj[key] for key in ("apiVersion", "kind", "metadata", "spec") if key in obj})
    except SpecInvalid:
        return None


def _asks(workload: Any, obj: Obj) -> Allocation | None:
    """What the spec claims now, as admission counts it (a daemon on one node: the page does not know the nodes)."""
    if workload is None:
        return None
    return claim_of(workload, created_at(obj), profile=profile()).request


def _unschedulable(obj: Obj) -> bool:
    status = obj.get("status") or {}
    scheduled = next((c for c in status.get("conditions") or [] if c.get("type") == "Scheduled"), {})
    return status.get("phase") == "Unschedulable" or scheduled.get("reason") == "Unschedulable"


def _placement(workload: Any, obj: Obj, host: Any) -> tuple[list[ClusterCandidate], dict[str, list[str]]]:
    """Each member's reason as the federation's placement would give it now (its candidates as the preview reads
    them: a member is healthy when its Ready condition says so)."""
    request = placement_request(workload, profile())
    if request is None:
        return [], {}
    used = placed_usage(host, exclude=str((obj.get("metadata") or {}).get("uid") or ""))
    candidates = []
    for member in sorted(host.list(MEMBER_CLUSTER.plural), key=lambda m: str(m["metadata"]["name"])):
        member_name = str(member["metadata"]["name"])
        conditions = (member.get("status") or {}).get("conditions") or ()
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
        candidates.append(candidate_of(member, healthy=ready, tier_requested=used.get(member_name, {})))
    try:
        decision = place(request, candidates)
    except NoFeasibleCluster as exc:
        return candidates, exc.reasons
    return candidates, {k: list(v) for k, v in decision.rejected.items()}


def _pods(kind: str, namespace: str, name: str) -> dict[str, list[Obj]]:
    selector = {WORKLOAD_LABEL: name, KIND_LABEL: kind}
    return {
        cluster: cache.list("pods", namespace=namespace, label_selector=selector)
        for cluster, cache in sorted(runtime.member_caches().items())
    }


def _events(obj: Obj, host: Any, namespace: str) -> list[Obj]:
    meta = obj.get("metadata") or {}
    kind, name = str(obj.get("kind")), str(meta.get("name"))
    found = host_events(host, obj) if host is not None else []
    siblings = siblings_of(host, namespace)
    for _, cache in sorted(runtime.member_caches().items()):
        found += member_events(cache, kind, namespace, name, siblings)
    return found


LIST_LIMIT = 200
QUIET = frozenset({"running", "paused", "stopped", "succeeded"})
"""List statuses that need no cause: the row's badge says it all."""


def list_causes(rows: Iterable[Row], projects: Iterable[Project]) -> dict[Row, Shown]:
    """The diagnosis of each listed row that is not quietly fine (at most ``LIST_LIMIT``), by row; without Events
    (the page has them), the grants read in one query."""
    host = runtime.host_cache()
    if host is None:
        return {}
    by_name = {p.name: p for p in projects}
    wanted = [r for r in rows if r.status not in QUIET and r.project in by_name][:LIST_LIMIT]
    grants = grants_for([by_name[name] for name in {r.project for r in wanted}])
    causes = {}
    for row in wanted:
        project = by_name[row.project]
        obj = host.get(KINDS[row.kind].plural, project.namespace, row.name)
        if obj is not None:
            shown = diagnosis_of(project, obj, grants=grants[project.pk], events=False)
            causes[row] = shown
    return causes
