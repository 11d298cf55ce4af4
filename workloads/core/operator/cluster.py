"""Per-member-cluster runtime: its Kube adapter, informers for CRs and owned objects, Event recorder.

Owned-object events are mapped back to the owning CR's key (controller ownerReference with the
pincompute.io group), so deleting or editing a Deployment by hand requeues its CR and is repaired.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from workloads.core import API_VERSION, VERSION
from workloads.core.errors import CoreError
from workloads.core.kinds import KINDS
from workloads.core.labels import KIND_LABEL, MANAGED_SELECTOR, NODE_REGION_LABEL, NODE_ZONE_LABEL
from workloads.core.operator.events import EventRecorder
from workloads.core.operator.kubeio import KUBEFLOW, NATIVE, NODE, Kube, Resource, cr_resource
from workloads.core.operator.watch import Informer

log = logging.getLogger(__name__)


class Key(NamedTuple):
    """A work item: one custom resource on one cluster."""

    cluster: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.cluster}/{self.kind}/{self.namespace}/{self.name}"


@dataclass
class Topology:
    zone: str = ""
    region: str = ""


class ClusterRuntime:
    def __init__(self, kube: Kube, enqueue: Callable[[Key], None], stop: threading.Event, *,
                 instance: str, topology: Topology | None = None, discovery_period: float = 15.0,
                 background_events: bool = True) -> None:
        self.kube, self.name, self.enqueue, self.stop = kube, kube.name, enqueue, stop
        self._fingerprints: dict[Key, tuple[Any, ...]] = {}
        self.events = EventRecorder(kube, instance, background=background_events)
        self.topology = topology or Topology()
        self.crs: dict[str, Informer] = {}
        self.native: dict[str, Informer] = {}
        self.capabilities: frozenset[str] = frozenset()
        self.discovery_period = discovery_period
        self._lock = threading.Lock()

    # -- start-up -------------------------------------------------------------------------------

    def start(self) -> None:
        """Start native informers now, CR informers for every kind already installed, and a discovery
        loop that picks up CRDs (and Kubeflow) installed later."""
        if not self.topology.zone:
            self.topology = self._discover_topology()
        for res in NATIVE.values():
            self._start_native(res)
        self._discover()
        threading.Thread(target=self._discovery_loop, name=f"discovery-{self.name}", daemon=True).start()

    def _start_native(self, res: Resource) -> None:
        informer = Informer(self.kube, res, self._on_owned, self.stop, selector=MANAGED_SELECTOR)
        self.native[res.kind] = informer
        informer.start()

    def _discover_topology(self) -> Topology:
        """The most common node zone/region; a cluster without nodes keeps an empty zone."""
        try:
            nodes = self.kube.list(NODE, limit=500).get("items") or []
        except CoreError as exc:
            log.warning("%s: cannot list nodes for the zone (%s)", self.name, exc)
            return Topology()
        zones = Counter(((n.get("metadata") or {}).get("labels") or {}).get(NODE_ZONE_LABEL) for n in nodes)
        regions = Counter(((n.get("metadata") or {}).get("labels") or {}).get(NODE_REGION_LABEL) for n in nodes)
        zones.pop(None, None)
        regions.pop(None, None)
        return Topology(zones.most_common(1)[0][0] if zones else "", regions.most_common(1)[0][0] if regions else "")

    def _discover(self) -> None:
        try:
            served = self.kube.served_kinds(API_VERSION)
            kubeflow = self.kube.served_kinds(f"kubeflow.org/{VERSION}")
        except CoreError as exc:
            log.warning("%s: discovery failed (%s)", self.name, exc)
            return
        with self._lock:
            for info in KINDS.values():
                if info.kind in served and info.kind not in self.crs:
                    log.info("%s: watching %s", self.name, info.kind)
                    informer = Informer(self.kube, cr_resource(info.kind, info.plural), self._on_cr, self.stop)
                    self.crs[info.kind] = informer
                    informer.start()
            self.capabilities = frozenset(f"kubeflow.org/{VERSION}/{kind}" for kind in kubeflow if kind in KUBEFLOW)
            for kind in kubeflow:
                if kind in KUBEFLOW and kind not in self.native:
                    self._start_native(KUBEFLOW[kind])

    def _discovery_loop(self) -> None:
        while not self.stop.wait(self.discovery_period):
            self._discover()

    def wait_synced(self, timeout: float) -> bool:
        informers = list(self.native.values()) + list(self.crs.values())
        return all(i.store.synced.wait(timeout) for i in informers)

    # -- event mapping --------------------------------------------------------------------------

    def _on_cr(self, event: str, obj: dict[str, Any]) -> None:
        metadata = obj.get("metadata") or {}
        kind = str(obj.get("kind"))
        namespace, name = str(metadata.get("namespace") or ""), str(metadata.get("name"))
        key = Key(self.name, kind, namespace, name)
        if event == "DELETED":
            self.events.forget(str(metadata.get("uid") or ""))
            self._fingerprints.pop(key, None)
            return  # the apiserver's garbage collector removes what it owned
        fingerprint = _spec_fingerprint(metadata)
        if event == "MODIFIED" and self._fingerprints.get(key) == fingerprint:
            return  # only status changed (usually our own write): nothing to reconcile
        self._fingerprints[key] = fingerprint
        self.enqueue(key)
        if kind == "PinScaler":  # the target PinApp must stop (or start) setting replicas
            target = ((obj.get("spec") or {}).get("targetRef") or {}).get("name")
            if target:
                self.enqueue(Key(self.name, "PinApp", namespace, str(target)))

    def _on_owned(self, event: str, obj: dict[str, Any]) -> None:
        metadata = obj.get("metadata") or {}
        for ref in metadata.get("ownerReferences") or []:
            if ref.get("controller") and ref.get("apiVersion") == API_VERSION and ref.get("kind") in KINDS:
                self.enqueue(Key(self.name, str(ref["kind"]), str(metadata.get("namespace") or ""),
                                 str(ref.get("name"))))

    # -- reads for the reconciler ---------------------------------------------------------------

    def get_cr(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        informer = self.crs.get(kind)
        return informer.store.get(namespace, name) if informer else None

    def cr_resource(self, kind: str) -> Resource | None:
        informer = self.crs.get(kind)
        return informer.res if informer else None

    def owned(self, uid: str) -> list[dict[str, Any]]:
        return [obj for informer in list(self.native.values()) for obj in informer.store.owned_by(uid)]

    def workload_pods(self, namespace: str, workload: str, kind: str) -> list[dict[str, Any]]:
        pods = self.native.get("Pod")
        if pods is None:
            return []
        return [p for p in pods.store.of_workload(namespace, workload)
                if ((p.get("metadata") or {}).get("labels") or {}).get(KIND_LABEL) == kind]

    def scalers_of(self, namespace: str, app: str) -> list[Mapping[str, Any]]:
        informer = self.crs.get("PinScaler")
        if informer is None:
            return []
        return [s for s in informer.store.items() if (s.get("metadata") or {}).get("namespace") == namespace
                and ((s.get("spec") or {}).get("targetRef") or {}).get("name") == app]

    def remember(self, obj: dict[str, Any]) -> None:
        """Put a write's result in the store so the next reconcile does not redo it before the watch catches up."""
        kind = obj.get("kind")
        informer = self.native.get(str(kind)) or self.crs.get(str(kind))
        if informer is not None:
            informer.store.upsert(obj, newer_only=True)

    def all_cr_keys(self) -> list[Key]:
        keys = []
        for kind, informer in list(self.crs.items()):
            for obj in informer.store.items():
                metadata = obj.get("metadata") or {}
                keys.append(Key(self.name, kind, str(metadata.get("namespace") or ""), str(metadata.get("name"))))
        return keys


def _spec_fingerprint(metadata: dict[str, Any]) -> tuple[Any, ...]:
    """What a reconcile depends on besides owned objects: spec (via generation), placement, deletion."""
    return (metadata.get("uid"), metadata.get("generation"), repr(sorted((metadata.get("labels") or {}).items())),
            repr(sorted((metadata.get("annotations") or {}).items())), metadata.get("deletionTimestamp"))
