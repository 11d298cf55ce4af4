"""One host workload's reconcile: finalizer, revision, placement, propagation to members, aggregated status.

Level-triggered and idempotent: the placement is recorded in the host object's status before any shard
is written, so a crash at any point resumes with the same homes (no duplicate shard can exist: a shard
is the host object's kind, namespace and name on its member), and shards on members outside the
placement are pruned. Deleting the host object removes every shard first (the federation finalizer).

Only an admitted spec reaches the members: the reconcile works on the object as admission admitted it
(``revisions.admitted_view``: the spec ``status.admission`` names, from its ControllerRevision while a newer
generation waits for quota), so a change that does not fit the grant never runs anywhere, and the members keep
the admitted generation meanwhile.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from pincompute.cluster_scheduling import ClusterCandidate, PlacementDecision, place
from pincompute.errors import CoreError, NoFeasibleCluster, SpecInvalid, TemporaryError
from pincompute.federation.admission import CONDITION as ADMITTED
from pincompute.federation.admission import is_admitted, recorded_admission
from pincompute.federation.aggregation import ShardObservation, aggregate
from pincompute.federation.autoscaling import scaler_shards, target_name
from pincompute.federation.failover import describe
from pincompute.federation.members import candidate_of
from pincompute.federation.propagation import (
    placement_request,
    placement_status,
    placements_of,
    shard_manifest,
)
from pincompute.federation.revisions import admitted_view
from pincompute.federation.rollout import LiveShard, shard_specs
from pincompute.federation.stickiness import EVERYWHERE_KINDS, stabilize, staying_clusters
from pincompute.kinds import KINDS
from pincompute.labels import (
    CONFIGS_HASH_ANNOTATION,
    FAILOVER_ANNOTATION,
    FEDERATED_LABEL,
    FEDERATION_FINALIZER,
    REPLACE_PLACEMENT_ANNOTATION,
)
from pincompute.operator.cluster import ClusterRuntime, Key
from pincompute.operator.events import EventRecorder
from pincompute.operator.federation.config_copier import ConfigCopier
from pincompute.operator.federation.failing_over import Failover
from pincompute.operator.federation.host import HostRuntime
from pincompute.operator.federation.host_status import host_status, same_status, where
from pincompute.operator.federation.member_health import MemberHealth
from pincompute.operator.federation.revisions_io import ensure_revision
from pincompute.operator.federation.shard_compare import federated as _federated
from pincompute.operator.federation.shard_compare import same_shard as _same_shard
from pincompute.operator.federation.shard_news import ShardNews
from pincompute.operator.federation.usage import PlacedUsage
from pincompute.operator.kubeio import cr_resource
from pincompute.operator.reconciler import Outcome
from pincompute.placement import Placement
from pincompute.runtime import RuntimeProfile
from pincompute.specs import PinApp, Workload, parse
from pincompute.status import condition_of

log = logging.getLogger(__name__)
SCHEDULED = "Scheduled"
UNSCHEDULABLE_RETRY = 15.0
FOLLOW_RETRY = 2.0  # a PinScaler waiting for its target's placement
DELETE_POLL = 0.5


class Propagator:
    def __init__(
        self,
        host: HostRuntime,
        members: Mapping[str, ClusterRuntime],
        health: MemberHealth,
        profile: RuntimeProfile,
        events: EventRecorder,
        *,
        now: Callable[[], datetime],
        seen: Mapping[tuple[str, str, str, str], datetime] | None = None,
        news: ShardNews | None = None,
    ) -> None:
        self.host, self.members, self.health, self.profile = host, members, health, profile
        self.events, self.now = events, now
        self.seen = seen if seen is not None else {}
        self.news = news or ShardNews()
        self.usage = PlacedUsage(host, profile)
        self.failover = Failover(host, members, health, now)
        self.copier = ConfigCopier(host, members, health)

    # -- the reconcile ------------------------------------------------------------------------------

    def reconcile(self, key: Key) -> Outcome:
        obj = self.host.workload(key.kind, key.namespace, key.name)
        if obj is None:
            return Outcome(wrote=self._prune(key, keep=()) + self.copier.sync(key.namespace)[0])
        meta = obj["metadata"]
        if meta.get("deletionTimestamp"):
            return self._finalize(key, obj)
        if not condition_of(obj, ADMITTED):
            return Outcome()  # admission decides first (and requeues it); writing now would only race with it
        if not is_admitted(obj):
            wrote = self._prune(key, keep=())
            try:
                parse(obj)
            except SpecInvalid as exc:
                self._status(obj, [], invalid="; ".join(str(e) for e in exc.errors))
                return Outcome(wrote=wrote)
            if (obj.get("status") or {}).get("placement") or (obj.get("status") or {}).get("shards"):
                self._status(obj, [], queued=True)  # reclaimed: its shards are gone, say so
            return Outcome(wrote=wrote)
        if FEDERATION_FINALIZER not in (meta.get("finalizers") or []):
            obj = self.host.patch_metadata(obj, {"finalizers": [*(meta.get("finalizers") or []), FEDERATION_FINALIZER]})
        view = self._admitted(obj)
        if view is None:
            return Outcome(FOLLOW_RETRY)  # its admitted spec's revision is not in the store yet
        obj = view
        try:
            workload = parse(obj)
        except SpecInvalid as exc:
            return self._status(obj, [], invalid="; ".join(str(e) for e in exc.errors))
        shards, problem = self._placement(obj, workload)
        if not shards:
            self._status(obj, [], revision=ensure_revision(self.host, obj, renumber=False), unschedulable=problem)
            return Outcome(FOLLOW_RETRY if workload.kind == "PinScaler" else UNSCHEDULABLE_RETRY)
        if not self.copier.ready(obj):
            self.copier.report_unreadable(obj, self.events)
            return Outcome(FOLLOW_RETRY)  # the project's Secrets/ConfigMaps are not listed yet: no checksum to stamp
        copied, pending_copies = self.copier.sync(key.namespace)  # before the shards: their pods read them
        wrote, pending = self._propagate(obj, workload, shards)
        retiring = self.failover.retiring(obj, shards)  # a drained member's shard until its replicas run elsewhere
        wrote += self._prune(key, keep=(*(p.cluster for p in shards), *retiring)) + copied
        pending = pending or pending_copies
        revision = ensure_revision(self.host, obj, renumber=False)  # after the shards: not on the way to pods
        self._status(obj, shards, revision=revision, problem=problem)
        due = self.failover.next_due(obj, shards)  # a lost member's grace runs out then
        waits = [w for w in (1.0 if pending or retiring else None, due) if w is not None]
        return Outcome(min(waits) if waits else None, wrote)

    def _admitted(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """The object as admitted (its spec while no change waits); an object admitted before admission records
        were written is taken as it is, as then."""
        record = recorded_admission(obj)
        if record is None:
            return obj
        meta = obj["metadata"]
        revisions = self.host.revisions(str(obj["kind"]), str(meta["name"]), str(meta["namespace"]))
        return admitted_view(obj, record.generation, record.spec_hash, revisions)

    # -- placement ----------------------------------------------------------------------------------

    def _placement(self, obj: dict[str, Any], workload: Workload) -> tuple[list[Placement], str]:
        """The shards to run (``_decide``), with the replicas on lost members failed over."""
        shards, problem = self._decide(obj, workload)
        request = placement_request(workload, self.profile) if shards else None
        if request is None or workload.kind in EVERYWHERE_KINDS:
            return shards, problem
        plan, rows = self.failover.plan(obj, request, shards, self._candidates(obj))
        record = dict((obj.get("status") or {}).get("placement") or {})
        moved = plan.shards if plan is not None else shards
        message = describe(rows, plan)
        if not record or (moved == shards and rows == (record.get("failover") or [])):
            return shards, problem
        record.update(clusters=placement_status(moved, None, generation=0, now=self.now())["clusters"])
        record.update(failover=rows, failoverMessage=message)
        self._status(obj, moved, extra={"placement": record})
        if plan is not None and plan.moves:
            self.events.record(obj, "Warning", "FailedOver", message)
        return moved, problem

    def _decide(self, obj: dict[str, Any], workload: Workload) -> tuple[list[Placement], str]:
        """The shards to run (a fresh decision is recorded in the status first) and ``problem``: why there
        are none, or why a kept placement could not be refreshed."""
        status = obj.get("status") or {}
        previous = placements_of(status)
        record = status.get("placement") or {}
        generation = int(obj["metadata"].get("generation") or 0)
        asked = str((obj["metadata"].get("annotations") or {}).get(REPLACE_PLACEMENT_ANNOTATION) or "")
        replace = bool(asked) and asked != str(record.get("replacedAt") or "")
        known = {str(m["metadata"]["name"]) for m in self.host.members()}
        current = (
            previous
            and int(record.get("generation") or 0) == generation
            and not replace
            and all(p.cluster in known for p in previous)
        )
        if current:
            return previous, ""
        if workload.kind == "PinScaler":
            return self._follow_target(obj), "waiting for its target PinApp to be placed"
        request = placement_request(workload, self.profile)
        if request is None:
            return [], "runs no pods"
        candidates = self._candidates(obj)
        try:
            decision = place(request, candidates)
        except NoFeasibleCluster as exc:
            message = str(exc)
            kept = [p for p in previous if p.cluster in known]
            return kept, message
        staying = staying_clusters(request, [_steady(c) for c in candidates])
        shards = stabilize(request, previous, decision.shards, available=staying, replace=replace)
        replaced = asked if replace else str(record.get("replacedAt") or "")
        self._record_placement(obj, shards, decision, generation, replaced)
        return shards, ""

    def _candidates(self, obj: dict[str, Any]) -> list[ClusterCandidate]:
        uid = str(obj["metadata"].get("uid"))
        requested = self.usage.by_cluster(exclude=uid)
        out = []
        for member in self.host.members():
            name = str(member["metadata"]["name"])
            connected = name in self.members
            out.append(
                candidate_of(
                    member,
                    healthy=connected and self.health.reachable(name),
                    tier_requested=requested.get(name, {}),
                    nodes=self.health.nodes(name) if connected else None,
                )
            )
        return out

    def _follow_target(self, obj: dict[str, Any]) -> list[Placement]:
        target = target_name(obj)
        app = self.host.workload("PinApp", str(obj["metadata"]["namespace"]), target)
        return scaler_shards(placements_of(app.get("status"))) if app is not None else []

    def _record_placement(
        self, obj: dict[str, Any], shards: list[Placement], decision: PlacementDecision, generation: int, replaced: str
    ) -> None:
        """Persist the homes before any shard is written: a crash after this resumes with them. The shard
        rows and conditions are written with them, so the status never shows a new placement beside the
        old shards' readiness."""
        record = placement_status(shards, decision, generation=generation, now=self.now(), replaced_at=replaced)
        old = (obj.get("status") or {}).get("placement") or {}
        record.update({k: old[k] for k in ("failover", "failoverMessage") if old.get(k)})  # still in flight
        before = [p.cluster for p in placements_of(obj.get("status"))]
        self._status(obj, shards, extra={"placement": record})
        if before != [p.cluster for p in shards]:
            self.events.record(obj, "Normal", "Scheduled", f"placed {where(shards)}")

    # -- propagation ---------------------------------------------------------------------------------

    def _propagate(self, obj: dict[str, Any], workload: Workload, shards: list[Placement]) -> tuple[int, bool]:
        """Server-side apply each shard whose member copy differs; returns (writes, anything pending)."""
        kind, meta = str(obj["kind"]), obj["metadata"]
        live = {
            p.cluster: self.members[p.cluster].get_cr(kind, meta["namespace"], meta["name"])
            for p in shards
            if p.cluster in self.members
        }
        specs = shard_specs(
            obj.get("spec") or {},
            workload if isinstance(workload, PinApp) else None,
            shards,
            {c: LiveShard.of(o) for c, o in live.items() if o is not None},
        )
        wrote, pending = 0, False
        failed_over = ((obj.get("status") or {}).get("placement") or {}).get("failover") or []
        config_hash = self.copier.checksum(obj)
        for placement in shards:
            member = self.members.get(placement.cluster)
            if member is None:
                pending = True
                continue
            desired = shard_manifest(obj, placement, specs[placement.cluster])
            took = [r for r in failed_over if r.get("to") == placement.cluster]
            if took:
                desired["metadata"]["annotations"][FAILOVER_ANNOTATION] = describe(took)
            if config_hash:
                desired["metadata"]["annotations"][CONFIGS_HASH_ANNOTATION] = config_hash
            if specs[placement.cluster] != obj.get("spec"):
                pending = True  # a zone held back by the rollout: look again soon
            current = live.get(placement.cluster)
            if current is not None and _same_shard(desired, current):
                continue
            res = member.cr_resource(kind) or cr_resource(kind, _plural(kind))
            shard = (placement.cluster, kind, meta["namespace"], meta["name"])
            try:
                with self.news.writing(shard):
                    applied = member.kube.apply(desired, res)
                    member.remember(applied)
                    self.news.wrote(shard, applied)
            except CoreError as exc:
                pending = True
                log.info("%s/%s on %s: %s", meta["namespace"], meta["name"], placement.cluster, exc)
                continue
            wrote += 1
            verb = "Updated" if current is not None else "Propagated"
            self.events.record(obj, "Normal", verb, f"shard {placement.shard_index} applied on {placement.cluster}")
        return wrote, pending

    def _prune(self, key: Key, keep: tuple[str, ...]) -> int:
        """Delete this workload's shards on members outside ``keep``; a member that fails is retried."""
        deleted = 0
        failed = []
        for name, member in self.members.items():
            if name in keep or (keep and not self.health.reachable(name)):
                continue  # an unreachable member's stale shard goes when it is back (its return requeues)
            shard = member.get_cr(key.kind, key.namespace, key.name)
            if shard is None or (shard["metadata"].get("labels") or {}).get(FEDERATED_LABEL) != "true":
                continue
            if shard["metadata"].get("deletionTimestamp"):
                continue
            res = member.cr_resource(key.kind)
            if res is None:
                continue
            try:
                member.kube.delete(res, key.namespace, key.name, uid=shard["metadata"].get("uid"))
            except CoreError as exc:
                failed.append(f"{name}: {exc}")
                continue
            deleted += 1
        if failed:
            raise TemporaryError("cannot remove shards: " + "; ".join(failed))
        return deleted

    def _finalize(self, key: Key, obj: dict[str, Any]) -> Outcome:
        wrote = self._prune(key, keep=()) + self.copier.sync(key.namespace)[0]
        remaining = [n for n, m in self.members.items() if m.get_cr(key.kind, key.namespace, key.name) is not None]
        remaining = [n for n in remaining if _federated(self.members[n].get_cr(key.kind, key.namespace, key.name))]
        if remaining:
            return Outcome(DELETE_POLL, wrote)
        finalizers = [f for f in obj["metadata"].get("finalizers") or [] if f != FEDERATION_FINALIZER]
        if FEDERATION_FINALIZER in (obj["metadata"].get("finalizers") or []):
            self.host.patch_metadata(obj, {"finalizers": finalizers})
            wrote += 1
        return Outcome(wrote=wrote)

    # -- status --------------------------------------------------------------------------------------

    def _status(
        self,
        obj: dict[str, Any],
        shards: list[Placement],
        *,
        revision: str = "",
        problem: str = "",
        queued: bool = False,
        unschedulable: str = "",
        invalid: str = "",
        extra: Mapping[str, Any] | None = None,
    ) -> Outcome:
        meta = obj["metadata"]
        generation = int(meta.get("generation") or 0)
        now = self.now()
        observations = []
        for p in shards:
            member = self.members.get(p.cluster)
            shard = member.get_cr(str(obj["kind"]), meta["namespace"], meta["name"]) if member else None
            state = self.health.state(p.cluster)
            reachable = member is not None and self.health.reachable(p.cluster)
            observations.append(
                ShardObservation(
                    p.cluster,
                    p.zone,
                    (shard or {}).get("status") if shard else None,
                    seen_at=self.seen.get((p.cluster, str(obj["kind"]), meta["namespace"], meta["name"])),
                    reachable=reachable,
                    since=state.since if state and not reachable else None,
                )
            )
        federated = aggregate(observations)
        record = (extra or {}).get("placement") or (obj.get("status") or {}).get("placement") or {}
        old = obj.get("status") or {}
        status = host_status(
            obj,
            federated,
            shards,
            now,
            revision=revision,
            problem=problem,
            queued=queued,
            unschedulable=unschedulable,
            invalid=invalid,
            failed_over=str(record.get("failoverMessage") or ""),
        )
        status.update(extra or {})
        if same_status(old, status):
            return Outcome()
        written = self.host.patch_status(obj, status)
        # ``obj`` may be the admitted view: it keeps its spec and generation, and takes the write's status and version
        obj["status"] = written.get("status") or {}
        obj["metadata"] = {**(written.get("metadata") or {}), "generation": generation}
        return Outcome(wrote=1)


def _steady(candidate: ClusterCandidate) -> ClusterCandidate:
    """A shard stays through a blip: an unreachable or closed member keeps what already runs there."""
    return dataclasses.replace(candidate, healthy=True, schedulable=True)


def _plural(kind: str) -> str:
    return KINDS[kind].plural
