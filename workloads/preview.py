"""What submitting a workload would do, before anything is written: the service the pages (and the API) call.

``preview(project, document, actor=actor)`` answers with the same functions the platform runs, fed from the portal's
caches (never an apiserver per request, but for the one point read of the live object an edit starts from):

- the placement the federation would make now: ``cluster_scheduling.place`` over ``members.candidate_of`` of the
  host's ``MemberCluster`` objects, with what is already placed counted as the federation's usage does
  (admitted host objects' ``status.placement`` replicas times ``propagation.placement_request``), and an edit kept
  where it is (``stickiness.stabilize``);
- the native objects ``translate`` makes on each chosen cluster, with the runtime profile's parts marked, and the
  injection report (``runtime.inject``);
- the quota fit per tier and resource (admitted, waiting, this workload, granted) and the submission's verdict
  (``workloads.preview_quota``);
- the project's NetworkPolicies its pods fall under on every member, and what each admits (``projects.network``);
- whether submitting creates it, changes it or changes nothing, with the object the write would make, and for an
  existing workload the field diff of the spec (``revisions.spec_changes``) and of the generated objects
  (``workloads.preview_diff``: the live object is a point read of the host, as the write's own).

Anyone who can read the project may preview (it writes nothing); another tenant's project is a 404.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from base.errors import Invalid
from clusters import runtime
from clusters.health import not_synced
from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest, place
from pincompute.errors import FieldError, NoFeasibleCluster, ServiceError, SpecInvalid
from pincompute.federation.members import candidate_of
from pincompute.federation.placed import placed_usage as federation_placed_usage
from pincompute.federation.propagation import placement_request, placements_of
from pincompute.federation.stickiness import stabilize, staying_clusters
from pincompute.kinds import KINDS as KIND_INFO
from pincompute.kinds import MEMBER_CLUSTER
from pincompute.placement import Placement
from pincompute.quantity import Resources
from pincompute.quota import pods_of
from pincompute.runtime import Identity, InjectionReport, inject
from pincompute.specs import PinScaler, Workload, parse, validate
from pincompute.specs.cache import parse_version
from pincompute.tiers import Tier
from pincompute.translate import translate
from projects.access import require_role
from projects.models import Project, ProjectRole
from projects.network_plan import network_view
from workloads import submission
from workloads.marked_yaml import Line, injected_paths, injection_marker, lines
from workloads.preview_diff import EditDiff, Outcome, edit_diff, live_object, outcome_of
from workloads.preview_fit import RoomNow, room_of
from workloads.preview_quota import QuotaFit, quota_fit

UNPLACED = "(not placed)"
PREVIEW_ROLES = (ProjectRole.OWNER, ProjectRole.DEVELOPER, ProjectRole.VIEWER)  # a preview writes nothing


@dataclass(frozen=True)
class NativeObject:
    kind: str
    name: str
    lines: list[Line]  # the page's YAML, each line marked when the platform injected it
    manifest: dict[str, Any]
    injected_paths: list[str]  # the API's marks: the outermost injected parts of ``manifest``

    @property
    def injected(self) -> int:
        return sum(1 for line in self.lines if line.injected)


@dataclass(frozen=True)
class ClusterObjects:
    """What one shard becomes on its member cluster."""

    placement: Placement
    objects: list[NativeObject]
    report: InjectionReport | None


@dataclass(frozen=True)
class ClusterRow:
    name: str
    zone: str
    region: str
    chosen: bool
    replicas: int | None
    score: float | None
    reasons: list[str]
    healthy: bool


@dataclass(frozen=True)
class PlacementPreview:
    shards: list[Placement]
    clusters: list[ClusterRow]
    problem: str = ""  # why there are no shards (or where they come from, for a PinScaler)
    kept: bool = False  # an edit: shards kept where they run (stickiness)


@dataclass(frozen=True)
class Preview:
    manifest: dict[str, Any]
    workload: Workload
    placement: PlacementPreview
    clusters: list[ClusterObjects]
    quota: QuotaFit
    diff: EditDiff | None
    refusal: ServiceError | None  # what submitting would refuse (policy, never fits)
    problems: list[str]
    outcome: Outcome  # created, configured or unchanged, and the object the write would make
    network: list[dict[str, Any]]  # the project's NetworkPolicies its pods fall under (every pod: all of them)
    room: RoomNow | None = None  # whether a node takes its pods now (``preview_fit``)


def preview(project: Project, document: dict[str, Any], *, actor: Any, version: str | None = None) -> Preview:
    """What submitting ``document`` to ``project`` would do; raises ``NotFound`` for a project the actor cannot
    read and ``SpecInvalid`` (every field) for an invalid spec, and reports the other refusals in the result."""
    require_role(project, actor, PREVIEW_ROLES)
    manifest = submission.complete(project, document)
    errors = validate(manifest)
    if errors:
        raise SpecInvalid(errors)
    workload = parse(manifest)
    refusal: ServiceError | None = None
    try:
        submission.check(project, manifest)
    except (submission.NeverFits, Invalid) as exc:
        refusal = exc
    problems: list[str] = []
    host = runtime.host_cache()
    if host is None:
        problems.append("The host's cache is not available: placement and usage cannot be read.")
    elif not host.synced:
        problems.append(not_synced("the host", host) + ": figures may lag.")
    info = KIND_INFO[workload.kind]
    cached = host.get(info.plural, project.namespace, workload.meta.name) if host is not None else None
    live, said = live_object(workload.kind, project.namespace, workload.meta.name, cached)
    problems += [said] if said else []
    live_manifest = _manifest(live, workload.kind) if live is not None else None
    asked = list(document["spec"]) if isinstance(document.get("spec"), dict) else []
    outcome = outcome_of(manifest, asked, live_manifest)
    manifest = outcome.manifest
    if live_manifest is not None:  # the objects it owns keep their owner reference
        manifest = {**manifest, "metadata": {**manifest["metadata"], "uid": live_manifest["metadata"].get("uid")}}
    shown = placement_of(workload, manifest, host, live)
    shards = shown.shards or [_unplaced(workload, manifest)]
    target = _target(workload, manifest, host)
    clusters = [_objects(workload, manifest, shard, target, problems) for shard in shards]
    daemon_nodes = sum(p.replicas or 0 for p in shown.shards) or 1
    quota = quota_fit(project, workload, daemon_nodes, exclude=(workload.kind, workload.meta.name))
    diff = None
    if live_manifest is not None:
        diff = edit_diff(live_manifest, manifest, shards, target, version)
    network = network_view(project)["policies"]
    room = room_of(project, workload, shown.shards)
    return Preview(manifest, workload, shown, clusters, quota, diff, refusal, problems, outcome, network, room)


# -- placement ------------------------------------------------------------------------------------------------


def placement_of(workload: Workload, manifest: Mapping[str, Any], host: Any, live: Any) -> PlacementPreview:
    """The federation's decision for ``workload`` now (its propagator's ``_placement``, from the cache)."""
    if isinstance(workload, PinScaler):
        app = host.get("pinapps", manifest["metadata"]["namespace"], workload.target) if host is not None else None
        shards = placements_of((app or {}).get("status"))
        problem = f"Follows its target PinApp {workload.target}" + ("" if shards else ", which is not placed yet")
        return PlacementPreview(shards, [], problem + ".")
    request = placement_request(workload, submission.profile())
    if request is None or host is None:
        return PlacementPreview([], [], "No member clusters to place on.")
    members = host.list(MEMBER_CLUSTER.plural)
    live_uid = str(((live or {}).get("metadata") or {}).get("uid") or "")
    candidates = _candidates(members, placed_usage(host, exclude=live_uid))
    if not candidates:
        return PlacementPreview([], [], "No member cluster is registered on the host yet.")
    try:
        decision = place(request, candidates)
    except NoFeasibleCluster as exc:
        rows = _rows(candidates, [], {}, exc.reasons)
        return PlacementPreview([], rows, "No member cluster can run it now; each one's reason is below.")
    previous = placements_of((live or {}).get("status"))
    shards = decision.shards
    kept = False
    if previous:
        staying = staying_clusters(
            request, [dataclasses.replace(c, healthy=True, schedulable=True) for c in candidates]
        )
        shards = stabilize(request, previous, decision.shards, available=staying)
        kept = [p.cluster for p in shards] != [p.cluster for p in decision.shards]
    return PlacementPreview(shards, _rows(candidates, shards, decision.scores, decision.rejected), kept=kept)


def _candidates(
    members: Sequence[Mapping[str, Any]], used: Mapping[str, dict[Tier, Resources]]
) -> list[ClusterCandidate]:
    out = []
    for member in sorted(members, key=lambda m: str(m["metadata"]["name"])):
        name = str(member["metadata"]["name"])
        ready = any(
            c.get("type") == "Ready" and c.get("status") == "True"
            for c in (member.get("status") or {}).get("conditions") or ()
        )
        out.append(candidate_of(member, healthy=ready, tier_requested=used.get(name, {})))
    return out


def placed_usage(host: Any, *, exclude: str = "") -> dict[str, dict[Tier, Resources]]:
    """What the federation has placed per member and tier: admitted host objects' recorded shards, replicas
    times one replica's request (``federation.placed``, as the federation counts it, read from the host cache: each
    object once per version)."""
    objects = ((info.kind, obj) for info in KIND_INFO.values() for obj in host.list(info.plural))
    return federation_placed_usage(
        objects, submission.profile(), lambda kind, obj: parse_version(_manifest(obj, kind)), exclude=exclude
    )


def _rows(
    candidates: Sequence[ClusterCandidate],
    shards: Sequence[Placement],
    scores: Mapping[str, float],
    rejected: Mapping[str, Sequence[str]],
) -> list[ClusterRow]:
    chosen = {p.cluster: p for p in shards}
    return [
        ClusterRow(
            c.name,
            c.zone,
            c.region,
            c.name in chosen,
            chosen[c.name].replicas if c.name in chosen else None,
            scores.get(c.name),
            list(rejected.get(c.name, ())),
            c.healthy,
        )
        for c in candidates
    ]


def _unplaced(workload: Workload, manifest: Mapping[str, Any]) -> Placement:
    """A stand-in shard, so the objects still show when nothing places it."""
    zones = (manifest.get("spec") or {}).get("zones") or []
    request: PlacementRequest | None = placement_request(workload, submission.profile())
    return Placement(UNPLACED, str(zones[0]) if zones else "", "", 0, 1, request.replicas if request else None)


# -- objects --------------------------------------------------------------------------------------------------


def _target(workload: Workload, manifest: Mapping[str, Any], host: Any) -> dict[str, Any] | None:
    if not isinstance(workload, PinScaler) or host is None:
        return None
    app = host.get("pinapps", manifest["metadata"]["namespace"], workload.target)
    return _manifest(app, "PinApp") if app is not None else None


def _objects(
    workload: Workload, manifest: Mapping[str, Any], shard: Placement, target: Any, problems: list[str]
) -> ClusterObjects:
    try:
        natives = translate(manifest, submission.profile(), shard, target=target, now=timezone.now())
    except ServiceError as exc:
        problems.append(f"No objects for {shard.cluster}: {exc.message}")
        natives = []
    user_env = {n for c in _containers(workload) for n in c.env_names()}
    mark = injection_marker(submission.profile(), workload.kind, user_env)
    objects = [
        NativeObject(
            str(o.get("kind")), str((o.get("metadata") or {}).get("name")), lines(o, mark), o, injected_paths(o, mark)
        )
        for o in natives
    ]
    return ClusterObjects(shard, objects, _report(workload, shard))


def _containers(workload: Workload) -> list[Any]:
    shape = pods_of(workload, 1)
    return [] if shape is None else [*shape[0].containers, *shape[0].sidecars]


def _report(workload: Workload, shard: Placement) -> InjectionReport | None:
    """What the runtime profile adds to this shard's pods (the same ``inject`` the translation runs)."""
    shape = pods_of(workload, 1)
    if shape is None:
        return None
    meta = workload.meta
    identity = Identity(
        meta.project,
        meta.team,
        meta.cost_center,
        meta.name,
        workload.kind,
        meta.tier.value,
        shard.cluster,
        shard.zone,
        str(shard.shard_index),
    )
    _, report = inject(shape[0].to_pod_spec(), submission.profile(), identity)
    return report


# -- quota ----------------------------------------------------------------------------------------------------


def _manifest(obj: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """A cached object as the core reads it (list items may lack kind and apiVersion)."""
    return {
        "apiVersion": KIND_INFO[kind].api_version,
        "kind": kind,
        "metadata": dict(obj.get("metadata") or {}),
        "spec": obj.get("spec"),
        "status": obj.get("status") or {},
    }


def field_errors(exc: ServiceError) -> list[FieldError]:
    return list(exc.fields or (FieldError("", exc.message),))
