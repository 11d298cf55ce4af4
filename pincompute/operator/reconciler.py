"""Reconcile one custom resource: validate, translate, apply, prune, status, Events.

Level-triggered: every step reads the current state (the informers' store) and writes only the
difference, so running it again, or after a crash at any point, converges to the same objects.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pincompute.errors import FieldError, NotFound, PermanentError, SpecInvalid
from pincompute.federation.autoscaling import target_name
from pincompute.federation.propagation import NOT_FEDERATED, unplaced_reason
from pincompute.operator.apply import WritePlan, plan_writes
from pincompute.operator.cluster import ClusterRuntime, Key
from pincompute.operator.kubeio import KUBEFLOW, NATIVE, AdmissionRefused, Resource
from pincompute.operator.placement_annotations import placement_for
from pincompute.pod_refusals import FAILED_CREATE, current_run, refusal
from pincompute.runtime import RuntimeProfile
from pincompute.specs import validate
from pincompute.status import derive_status, set_condition
from pincompute.translate import restart_container_plan, translate
from pincompute.translate.compare import is_subset
from pincompute.translate.pods import LAST_RESTART_STATUS, restart_summary

log = logging.getLogger(__name__)
RECREATE_POLL = 1.0


@dataclass(frozen=True)
class Outcome:
    requeue_after: float | None = None
    wrote: int = 0


def _resource(kind: str) -> Resource:
    res = NATIVE.get(kind) or KUBEFLOW.get(kind)
    if res is None:
        raise PermanentError(f"translation produced an unsupported kind {kind}")
    return res


def _ref(obj: Mapping[str, Any]) -> str:
    return f"{obj.get('kind')}/{(obj.get('metadata') or {}).get('name')}"


def controller_refusals(cluster: ClusterRuntime, owned: list[dict[str, Any]]) -> dict[str, str]:
    """What the member said refusing the pods of each owned Job or DaemonSet, or of a CronJob's present run, by the
    owned object's name (a Deployment says it in its own ReplicaFailure)."""
    said: dict[str, str] = {}
    for obj in owned:
        name = obj["metadata"]["name"]
        if obj.get("kind") in ("Job", "DaemonSet"):
            said[name] = refusal(obj, cluster.failed_creates(obj))
        elif obj.get("kind") == "CronJob" and (run := current_run(obj, cluster.runs_of(obj))) is not None:
            said[name] = refusal(run, cluster.failed_creates(run))
    return {name: message for name, message in said.items() if message}


class Reconciler:
    def __init__(
        self,
        clusters: Mapping[str, ClusterRuntime],
        profile: RuntimeProfile,
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.clusters, self.profile, self.now = clusters, profile, now

    def reconcile(self, key: Key) -> Outcome:
        cluster = self.clusters[key.cluster]
        cr = cluster.get_cr(key.kind, key.namespace, key.name)
        if cr is None or (cr.get("metadata") or {}).get("deletionTimestamp"):
            return Outcome()
        unplaced = unplaced_reason(cr)
        if unplaced is not None:
            return self._refuse_unplaced(cluster, cr, unplaced)
        errors = validate(cr)
        if errors:
            return self._invalid(cluster, cr, errors)
        now = self.now()
        try:
            desired = self._translate(cluster, cr, now)
        except SpecInvalid as exc:
            return self._invalid(cluster, cr, exc.errors)
        metadata = cr["metadata"]
        uid = str(metadata.get("uid"))
        live = cluster.owned(uid)
        plan = plan_writes(desired, live, owner_uid=uid, owner_name=str(metadata["name"]))
        refused: dict[str, str] = {}  # objects an admission refused to create, by name: what it said
        wrote = self._execute(cluster, cr, plan, refused)
        restarted = self._restart_container(cluster, cr)
        owned = cluster.owned(uid)
        self._write_status(cluster, cr, owned, now, restarted, {**controller_refusals(cluster, owned), **refused})
        requeue = RECREATE_POLL if (plan.recreate or plan.waiting) else None
        if key.kind == "PinScaler" and (cr.get("spec") or {}).get("schedules"):
            requeue = min(requeue or 60.0, 60.5 - now.second - now.microsecond / 1e6)  # next minute boundary
        return Outcome(requeue, wrote)

    # -- translation ----------------------------------------------------------------------------

    def _translate(self, cluster: ClusterRuntime, cr: Mapping[str, Any], now: datetime) -> list[dict[str, Any]]:
        kind = cr["kind"]
        placement = placement_for(cr, cluster.name, cluster.topology.zone, cluster.topology.region)
        autoscaled = False
        target = None
        if kind == "PinApp":
            autoscaled = any(
                not ((s.get("spec") or {}).get("operations") or {}).get("paused")
                and not ((s.get("spec") or {}).get("operations") or {}).get("stopped")
                and unplaced_reason(s) is None
                for s in cluster.scalers_of(cr["metadata"].get("namespace", ""), cr["metadata"]["name"])
            )
        elif kind == "PinScaler":
            target = cluster.get_cr("PinApp", cr["metadata"].get("namespace", ""), target_name(cr))
        return translate(
            cr,
            self.profile,
            placement,
            capabilities=cluster.capabilities,
            autoscaled=autoscaled,
            target=target,
            now=now,
        )

    # -- writes ---------------------------------------------------------------------------------

    def _execute(self, cluster: ClusterRuntime, cr: Mapping[str, Any], plan: WritePlan, refused: dict[str, str]) -> int:
        """Apply, patch, recreate and prune as planned; an object an admission refuses (a PinPod's Pod under Pod
        Security) goes into ``refused`` and the rest of the plan goes on: the status says why, and the next try
        comes with a change or the resync, never in a loop."""
        kube = cluster.kube
        wrote = 0
        for obj in plan.apply:
            res = _resource(obj["kind"])
            live = cluster.live(obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"])
            if (
                obj["kind"] == "Job"
                and live is not None
                and not is_subset(obj["spec"]["template"], (live.get("spec") or {}).get("template"))
            ):
                # a Job's pod template is immutable: replace the Job (the next reconcile creates it)
                kube.delete(res, obj["metadata"]["namespace"], obj["metadata"]["name"], uid=live["metadata"].get("uid"))
                plan.waiting.append(_ref(obj))
                cluster.events.record(cr, "Normal", "Replaced", f"deleted {_ref(obj)} to change its pod template")
                wrote += 1
                continue
            try:
                result = kube.apply(obj, res)
            except AdmissionRefused as exc:
                refused[obj["metadata"]["name"]] = exc.said
                cluster.events.record(cr, "Warning", FAILED_CREATE, f"{_ref(obj)}: {exc.said}")
                continue
            cluster.remember(result)
            wrote += 1
            cluster.events.record(cr, "Normal", "Updated" if live else "Created", f"applied {_ref(obj)}")
        for item in plan.patch_pods:
            meta = item.obj["metadata"]
            result = kube.patch(NATIVE["Pod"], meta["namespace"], meta["name"], item.patch, strategic=True)
            cluster.remember(result)
            wrote += 1
            images = ", ".join(f"{c['name']}={c['image']}" for g in item.patch["spec"].values() for c in g)
            cluster.events.record(cr, "Normal", "ContainerImageUpdated", f"pod {meta['name']}: {images}")
        for pod in plan.recreate:
            meta = pod["metadata"]
            kube.delete(NATIVE["Pod"], meta["namespace"], meta["name"], uid=meta.get("uid"))
            wrote += 1
            cluster.events.record(
                cr, "Normal", "PodRecreated", f"pod {meta['name']}: spec changed beyond images; deleted to recreate"
            )
        for stale in plan.prune:
            meta = stale["metadata"]
            kube.delete(_resource(str(stale["kind"])), meta.get("namespace"), meta["name"], uid=meta.get("uid"))
            wrote += 1
            cluster.events.record(cr, "Normal", "Pruned", f"deleted {_ref(stale)}: no longer desired")
        return wrote

    def _restart_container(self, cluster: ClusterRuntime, cr: Mapping[str, Any]) -> str | None:
        """restartContainer as the plan says: SIGTERM to PID 1 of the container through ``pods/exec`` (the kubelet
        restarts it in place: same pod, its restartCount rises), or, where that cannot be done or did not work
        (restartPolicy Never, the container not running, the exec refused or failing), delete the pod for its
        controller (or this operator) to make a new one. One Event per pod deleted says why, one says the whole."""
        request = ((cr.get("spec") or {}).get("operations") or {}).get("restartContainer")
        if not request:
            return None
        meta = cr["metadata"]
        pods = cluster.workload_pods(meta.get("namespace", ""), meta["name"], cr["kind"])
        actions = restart_container_plan(cr, pods)
        if not actions and (cr.get("status") or {}).get(LAST_RESTART_STATUS) == request.get("requestedAt"):
            return None
        by_name = {(p.get("metadata") or {}).get("name"): p for p in pods}
        restarted: list[str] = []
        deleted: dict[str, str] = {}
        for action in actions:
            why = action.why
            if action.action == "exec-kill":
                result = cluster.kube.exec(meta.get("namespace", ""), action.pod, action.container, action.command)
                if result.ok:
                    restarted.append(action.pod)
                    continue
                why = f"no exec ({result.said or f'exit code {result.exit_code}'})"
            pod = by_name[action.pod]
            cluster.kube.delete(NATIVE["Pod"], meta.get("namespace"), action.pod, uid=pod["metadata"].get("uid"))
            deleted[action.pod] = why
            cluster.events.record(
                cr, "Normal", "PodDeleted", f"deleted pod {action.pod} to restart container {action.container}: {why}"
            )
        summary = restart_summary(str(request["container"]), restarted, deleted)
        cluster.events.record(cr, "Normal", "ContainerRestarted", summary)
        return str(request.get("requestedAt"))

    # -- status ---------------------------------------------------------------------------------

    def _write_status(
        self,
        cluster: ClusterRuntime,
        cr: Mapping[str, Any],
        owned: list[dict[str, Any]],
        now: datetime,
        restarted: str | None,
        refusals: Mapping[str, str],
    ) -> None:
        old = dict(cr.get("status") or {})
        status = derive_status(cr["kind"], cr, owned, now=now, refusals=refusals)
        last_restart = restarted or old.get(LAST_RESTART_STATUS)
        if last_restart:
            status[LAST_RESTART_STATUS] = last_restart
        before = {c.get("type"): c.get("status") for c in old.get("conditions") or []}
        if self._patch_status(cluster, cr, old, status):
            ready = next(c for c in status["conditions"] if c["type"] == "Ready")
            if ready["status"] == "True" and before.get("Ready") != "True":
                cluster.events.record(cr, "Normal", ready["reason"] or "Ready", f"{cr['kind']} is ready")

    def _patch_status(
        self, cluster: ClusterRuntime, cr: Mapping[str, Any], old: Mapping[str, Any], status: Mapping[str, object]
    ) -> bool:
        if status == old:
            return False
        body = {"status": {**{k: None for k in old if k not in status}, **status}}
        res = cluster.cr_resource(cr["kind"])
        if res is None:
            return False
        meta = cr["metadata"]
        try:
            result = cluster.kube.patch(res, meta.get("namespace"), meta["name"], body, sub="status")
        except NotFound:
            return False  # deleted while we worked: nothing left to report on
        cluster.remember(result)
        return True

    def _refuse_unplaced(self, cluster: ClusterRuntime, cr: Mapping[str, Any], reason: str) -> Outcome:
        """Run nothing from an object the federation did not place (``Degraded``/``NotFederated`` and a Warning
        Event), and remove what an earlier operator made from it: the member ResourceQuotas are only a backstop,
        each as large as the project's whole regional grant."""
        uid = str(cr["metadata"].get("uid"))
        plan = plan_writes([], cluster.owned(uid), owner_uid=uid, owner_name=str(cr["metadata"]["name"]))
        wrote = self._execute(cluster, cr, plan, {})
        self.degrade(cluster, cr, NOT_FEDERATED, reason)
        return Outcome(wrote=wrote)

    def _invalid(self, cluster: ClusterRuntime, cr: Mapping[str, Any], errors: list[FieldError]) -> Outcome:
        """Degraded/InvalidSpec with every field error; nothing is created or changed (no retry)."""
        message = "; ".join(str(e) for e in errors)
        self.degrade(cluster, cr, "InvalidSpec", message)
        return Outcome()

    def degrade(self, cluster: ClusterRuntime, cr: Mapping[str, Any], reason: str, message: str) -> None:
        old = dict(cr.get("status") or {})
        generation = int((cr.get("metadata") or {}).get("generation") or 0)
        now = self.now()
        conditions = list(old.get("conditions") or [])
        for type_, value in (("Ready", "False"), ("Progressing", "False"), ("Degraded", "True")):
            conditions = set_condition(conditions, type_, value, reason, message, generation, now)
        status = {**old, "observedGeneration": generation, "conditions": conditions, "phase": "Degraded"}
        if self._patch_status(cluster, cr, old, status):
            cluster.events.record(cr, "Warning", reason, message)
