"""Per-member-cluster runtime: its Kube adapter, informers for CRs and owned objects, Event recorder.

Informers are the core's list-watch (``pincompute.kube.listwatch``) filling one Store per cluster,
keyed by kind ("Pod", "PinApp", ...). Reconciles read owned objects from that store instead of issuing a
LIST per reconcile, which is what lets one process handle thousands of custom resources; the store's
owner-uid and label indexes make the per-reconcile lookup O(objects of that workload).

Owned-object events are mapped back to the owning CR's key (controller ownerReference with the
pincompute.io group), so deleting or editing a Deployment by hand requeues its CR and is repaired; those
arriving within ``OWNED_COALESCE_SECONDS`` of each other requeue it once. The
``FailedCreate`` Events of the controllers (``pod_refusals``) are watched too, and requeue the CR whose Job,
DaemonSet or CronJob run they are about.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from pincompute import API_VERSION, VERSION
from pincompute.errors import CoreError
from pincompute.federation.autoscaling import target_name
from pincompute.kinds import KINDS
from pincompute.kube.listwatch import ListWatch
from pincompute.kube.rawapi import Obj
from pincompute.kube.store import Store
from pincompute.labels import KIND_LABEL, MANAGED_SELECTOR, NODE_REGION_LABEL, NODE_ZONE_LABEL, WORKLOAD_LABEL
from pincompute.operator.events import EventRecorder
from pincompute.operator.kubeio import EVENT, KUBEFLOW, NATIVE, NODE, Kube, Resource, cr_resource
from pincompute.pod_refusals import EVENT_FIELD_SELECTOR

log = logging.getLogger(__name__)
REQUEST_TIMEOUT = (5.0, 30.0)  # LIST pages and the watch's connect
WATCH_TIMEOUT = 240  # server-side timeoutSeconds of one watch request
OWNED_COALESCE_SECONDS = 0.25  # owned objects' events within this of each other requeue their CR once


def controller_uid(obj: Mapping[str, Any]) -> str | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return str(ref.get("uid"))
    return None


class Key(NamedTuple):
    """A work item: one custom resource on one cluster."""

    cluster: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.cluster}/{self.kind}/{self.namespace}/{self.name}"


class Enqueue(Protocol):
    """Queue ``key`` for a reconcile; ``cause`` says what asked (the reconciles-by-cause metric)."""

    def __call__(self, key: Key, cause: str = "other", /) -> None: ...


@dataclass
class Topology:
    zone: str = ""
    region: str = ""


class ClusterRuntime:
    def __init__(
        self,
        kube: Kube,
        enqueue: Enqueue,
        stop: threading.Event,
        *,
        instance: str,
        topology: Topology | None = None,
        discovery_period: float = 15.0,
        background_events: bool = True,
        enqueue_after: Callable[[Key, float, str], None] | None = None,
        ignored: Callable[[str], None] = lambda _cause: None,
    ) -> None:
        self.kube, self.name, self.enqueue, self.stop = kube, kube.name, enqueue, stop
        self.enqueue_after = enqueue_after or (lambda key, _delay, cause: enqueue(key, cause))
        self.ignored = ignored
        # the resourceVersion of our last write of each owned object: its watch echo is no news
        self._written: dict[tuple[str, str, str], str] = {}
        self._fingerprints: dict[Key, tuple[Any, ...]] = {}
        self._targets: dict[Key, str] = {}  # each PinScaler's target PinApp, as last seen
        self.events = EventRecorder(kube, instance, background=background_events)
        self.topology = topology or Topology()
        self.store = Store()  # full objects: the SSA plan reads managedFields, so nothing is slimmed
        self.crs: dict[str, Resource] = {}  # watched kinds -> where they live
        self.native: dict[str, Resource] = {}
        self.watches: dict[str, ListWatch] = {}  # by kind
        self.capabilities: frozenset[str] = frozenset()
        self.discovery_period = discovery_period
        self.observers: list[Callable[[str, dict[str, Any]], None]] = []  # every CR event (the federation's shards)
        self._lock = threading.Lock()

    # -- start-up -------------------------------------------------------------------------------

    def start(self) -> None:
        """Start native informers now, CR informers for every kind already installed, and a discovery
        loop that picks up CRDs (and Kubeflow) installed later."""
        if not self.topology.zone:
            self.topology = self._discover_topology()
        for res in NATIVE.values():
            self._start_native(res)
        self._watch(EVENT, self._on_failed_create, fields=EVENT_FIELD_SELECTOR)
        self._discover()
        threading.Thread(target=self._discovery_loop, name=f"discovery-{self.name}", daemon=True).start()

    def _start_native(self, res: Resource) -> None:
        self.native[res.kind] = res
        self._watch(res, self._on_owned, MANAGED_SELECTOR)

    def _watch(
        self,
        res: Resource,
        handler: Callable[[str, Obj], None],
        selector: str | None = None,
        *,
        fields: str | None = None,
    ) -> None:
        self.watches[res.kind] = start_watch(self.kube, self.store, res, handler, selector, fields=fields)

    def _restart_crashed(self) -> None:
        """A list-watch whose thread died of a bug (recorded in its last_error) starts again, relisting."""
        for kind, watch in list(self.watches.items()):
            if watch.crashed and not self.stop.is_set():
                res = self.native.get(kind) or self.crs.get(kind) or EVENT
                log.warning("%s: restarting the %s watch (%s)", self.name, kind, watch.last_error)
                if kind == EVENT.kind:
                    self._watch(EVENT, self._on_failed_create, fields=EVENT_FIELD_SELECTOR)
                elif kind in self.native:
                    self._watch(res, self._on_owned, MANAGED_SELECTOR)
                else:
                    self._watch(res, self._on_cr)

    def close(self, timeout: float = 5.0) -> bool:
        """Stop every list-watch (unblocking their reads); True when all ended within ``timeout``."""
        watches = list(self.watches.values())
        for watch in watches:
            watch.stop()
        deadline = time.monotonic() + timeout
        return all([watch.join(max(0.0, deadline - time.monotonic())) for watch in watches])

    def _discover_topology(self) -> Topology:
        """The most common node zone/region; a cluster without nodes keeps an empty zone."""
        try:
            nodes = self.kube.list(NODE, limit=500).get("items") or []
        except CoreError as exc:
            log.warning("%s: cannot list nodes for the zone (%s)", self.name, exc)
            return Topology()
        labels = [((n.get("metadata") or {}).get("labels") or {}) for n in nodes]
        zones = Counter(str(x[NODE_ZONE_LABEL]) for x in labels if x.get(NODE_ZONE_LABEL) is not None)
        regions = Counter(str(x[NODE_REGION_LABEL]) for x in labels if x.get(NODE_REGION_LABEL) is not None)
        return Topology(zones.most_common(1)[0][0] if zones else "", regions.most_common(1)[0][0] if regions else "")

    def _discover(self) -> None:
        try:
            served = self.kube.served_kinds(API_VERSION)
            kubeflow = self.kube.served_kinds(f"kubeflow.org/{VERSION}")
        except CoreError as exc:
            log.warning("%s: discovery failed (%s)", self.name, exc)
            return
        with self._lock:
            if self.stop.is_set():
                return
            for info in KINDS.values():
                if info.kind in served and info.kind not in self.crs:
                    log.info("%s: watching %s", self.name, info.kind)
                    res = self.crs[info.kind] = cr_resource(info.kind, info.plural)
                    self._watch(res, self._on_cr)
            self.capabilities = frozenset(f"kubeflow.org/{VERSION}/{kind}" for kind in kubeflow if kind in KUBEFLOW)
            for kind in kubeflow:
                if kind in KUBEFLOW and kind not in self.native:
                    self._start_native(KUBEFLOW[kind])

    def _discovery_loop(self) -> None:
        while not self.stop.wait(self.discovery_period):
            with self._lock:
                self._restart_crashed()
            self._discover()

    def wait_synced(self, timeout: float) -> bool:
        return all(watch.synced.wait(timeout) for watch in list(self.watches.values()))

    # -- event mapping --------------------------------------------------------------------------

    def _on_cr(self, event: str, obj: dict[str, Any]) -> None:
        for observe in self.observers:
            observe(event, obj)
        metadata = obj.get("metadata") or {}
        kind = str(obj.get("kind"))
        namespace, name = str(metadata.get("namespace") or ""), str(metadata.get("name"))
        key = Key(self.name, kind, namespace, name)
        if event == "DELETED":
            self.events.forget(str(metadata.get("uid") or ""))
            self._fingerprints.pop(key, None)
            if kind == "PinScaler":
                self._scaler_targets(key, obj, gone=True)
            return  # the apiserver's garbage collector removes what it owned
        fingerprint = _spec_fingerprint(metadata)
        if event == "MODIFIED" and self._fingerprints.get(key) == fingerprint:
            return  # only status changed (usually our own write): nothing to reconcile
        self._fingerprints[key] = fingerprint
        self.enqueue(key, "cr_change")
        if kind == "PinScaler":
            self._scaler_targets(key, obj, gone=False)

    def _scaler_targets(self, key: Key, obj: Mapping[str, Any], *, gone: bool) -> None:
        """A scaler's PinApps (the one it targets and the one it targeted before, or the last when it is deleted)
        must stop or start setting replicas: left to an HPA that no longer drives them, they would keep what it set."""
        target = target_name(obj)
        before = self._targets.pop(key, "") if gone else self._targets.get(key, "")
        if not gone and target:
            self._targets[key] = target
        for name in {before, target} - {""}:
            self.enqueue(Key(self.name, "PinApp", key.namespace, name), "scaler")

    def _on_owned(self, event: str, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata") or {}
        ident = (str(obj.get("kind")), str(meta.get("namespace") or ""), str(meta.get("name")))
        if event != "DELETED" and self._written.pop(ident, None) == meta.get("resourceVersion"):
            self.ignored("own_write")
            return
        key = self._owning_key(obj)
        if key is not None:
            # a pod steps through scheduled, started and ready within moments: one reconcile reads them all
            self.enqueue_after(key, OWNED_COALESCE_SECONDS, "owned")

    def _owning_key(self, obj: Mapping[str, Any], *, through_cronjob: bool = False) -> Key | None:
        """The CR controlling ``obj``; with ``through_cronjob``, also the one controlling the CronJob whose run it
        is."""
        metadata = obj.get("metadata") or {}
        namespace = str(metadata.get("namespace") or "")
        for ref in metadata.get("ownerReferences") or []:
            if not ref.get("controller"):
                continue
            if ref.get("apiVersion") == API_VERSION and ref.get("kind") in KINDS:
                return Key(self.name, str(ref["kind"]), namespace, str(ref.get("name")))
            if through_cronjob and ref.get("kind") == "CronJob":
                cronjob = self.live("CronJob", namespace, str(ref.get("name")))
                return None if cronjob is None else self._owning_key(cronjob)
        return None

    def _on_failed_create(self, event: str, obj: dict[str, Any]) -> None:
        """A controller could not create pods: requeue the CR of the object it is about (its status says so)."""
        about = obj.get("involvedObject") or {}
        subject = self.live(str(about.get("kind")), str(about.get("namespace") or ""), str(about.get("name")))
        if event != "DELETED" and subject is not None and subject["metadata"].get("uid") == about.get("uid"):
            key = self._owning_key(subject, through_cronjob=True)
            if key is not None:
                self.enqueue(key, "failed_create")

    # -- reads for the reconciler ---------------------------------------------------------------

    def get_cr(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self.store.get(kind, namespace, name) if kind in self.crs else None

    def live(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """A managed native object as last seen (None when absent or its kind is not watched)."""
        return self.store.get(kind, namespace, name) if kind in self.native else None

    def cr_resource(self, kind: str) -> Resource | None:
        return self.crs.get(kind)

    def owned(self, uid: str) -> list[dict[str, Any]]:
        """Managed native objects whose controller ownerReference is ``uid``."""
        return [
            obj
            for kind in list(self.native)
            for obj in self.store.list(kind, owner_uid=uid)
            if controller_uid(obj) == uid
        ]

    def failed_creates(self, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The ``FailedCreate`` Events about ``obj`` (its namespace's, matched by uid)."""
        metadata = obj.get("metadata") or {}
        return [
            e
            for e in self.store.list(EVENT.kind, str(metadata.get("namespace") or ""))
            if (e.get("involvedObject") or {}).get("uid") == metadata.get("uid")
        ]

    def runs_of(self, cronjob: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The Jobs a CronJob made (managed: they carry its template's labels)."""
        metadata = cronjob.get("metadata") or {}
        uid = str(metadata.get("uid"))
        jobs = self.store.list("Job", str(metadata.get("namespace") or ""), owner_uid=uid)
        return [j for j in jobs if controller_uid(j) == uid]

    def workload_pods(self, namespace: str, workload: str, kind: str) -> list[dict[str, Any]]:
        if "Pod" not in self.native:
            return []
        return self.store.list("Pod", namespace, label_selector={WORKLOAD_LABEL: workload, KIND_LABEL: kind})

    def scalers_of(self, namespace: str, app: str) -> list[Mapping[str, Any]]:
        if "PinScaler" not in self.crs:
            return []
        return [s for s in self.store.list("PinScaler", namespace) if target_name(s) == app]

    def remember(self, obj: dict[str, Any]) -> None:
        """Put a write's result in the store so the next reconcile does not redo it before the watch catches up."""
        kind = str(obj.get("kind"))
        if kind in self.native or kind in self.crs:
            self.store.put_if_newer(kind, obj)
        if kind in self.native:
            meta = obj.get("metadata") or {}
            self._written[(kind, str(meta.get("namespace") or ""), str(meta.get("name")))] = str(
                meta.get("resourceVersion") or ""
            )

    def all_cr_keys(self) -> list[Key]:
        keys = []
        for kind in list(self.crs):
            for obj in self.store.list(kind):
                metadata = obj.get("metadata") or {}
                keys.append(Key(self.name, kind, str(metadata.get("namespace") or ""), str(metadata.get("name"))))
        return keys


def start_watch(
    kube: Kube,
    store: Store,
    res: Resource,
    handler: Callable[[str, Obj], None] | None,
    selector: str | None = None,
    *,
    fields: str | None = None,
    namespace: str | None = None,
) -> ListWatch:
    """The operator's list-watch of one collection on one cluster (members and the host alike), started; cluster-wide,
    or in ``namespace`` only."""
    watch = ListWatch(
        lambda: kube.api,
        store,
        res.kind,
        res.path(namespace),
        name=f"{kube.name}-{res.plural}" + (f"-{namespace}" if namespace else ""),
        label_selector=selector,
        field_selector=fields,
        on_event=handler,
        timeout=REQUEST_TIMEOUT,
        watch_timeout=WATCH_TIMEOUT,
        backoff_base=0.2,
    )
    watch.start()
    return watch


def _spec_fingerprint(metadata: dict[str, Any]) -> tuple[Any, ...]:
    """What a reconcile depends on besides owned objects: spec (via generation), placement, deletion."""
    return (
        metadata.get("uid"),
        metadata.get("generation"),
        repr(sorted((metadata.get("labels") or {}).items())),
        repr(sorted((metadata.get("annotations") or {}).items())),
        metadata.get("deletionTimestamp"),
    )
