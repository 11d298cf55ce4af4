"""The host cluster as the federation's store: list-watches of the workload kinds, the projects' quota
objects, the member clusters and the revisions, into one full-object Store.

Events become work-queue keys: a workload's own key for a change of its spec or metadata (not of its
status: that is our own write, except a member's refusal appearing; nor of our own finalizer; nor before admission
has decided, which queues it then), the project's admission key whenever a
workload comes, goes or changes, or the project's quota changes, and every workload key when a member cluster
changes. A PinApp's placement changing (placed, failed over, drained: a status change) queues the PinScalers that
target it, whose shards follow its shards (``federation.autoscaling.scaler_shards``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from pincompute.errors import Conflict, NotFound
from pincompute.federation.admission import CONDITION as ADMITTED
from pincompute.federation.autoscaling import TARGET_KIND, target_name
from pincompute.federation.refusal import current_refusal
from pincompute.federation.revisions import revision_selector
from pincompute.kinds import KINDS, MEMBER_CLUSTER, PROJECT_QUOTA
from pincompute.kube.listwatch import ListWatch
from pincompute.kube.store import Store
from pincompute.labels import FEDERATION_FINALIZER, MANAGED_SELECTOR
from pincompute.operator.cluster import Enqueue, Key, start_watch
from pincompute.operator.federation.config_watches import ConfigWatches
from pincompute.operator.kubeio import Kube, Resource, cr_resource
from pincompute.status import condition_of

log = logging.getLogger(__name__)

ADMISSION = "@Admission"
"""The kind of a project's admission key (``Key(host, ADMISSION, namespace, "")``): one at a time per project."""

REVISION = Resource("apps/v1", "ControllerRevision", "controllerrevisions")
QUOTA = cr_resource(PROJECT_QUOTA.kind, PROJECT_QUOTA.plural)
MEMBERS = Resource(MEMBER_CLUSTER.api_version, MEMBER_CLUSTER.kind, MEMBER_CLUSTER.plural, namespaced=False)
WORKLOADS = {kind: cr_resource(kind, info.plural) for kind, info in KINDS.items()}


def _fingerprint(obj: dict[str, Any]) -> tuple[Any, ...]:
    meta = obj.get("metadata") or {}
    return (
        meta.get("uid"),
        meta.get("generation"),
        repr(sorted((meta.get("labels") or {}).items())),
        repr(sorted((meta.get("annotations") or {}).items())),
        meta.get("deletionTimestamp"),
        # our own finalizer coming or going is no news (its echo would queue a reconcile that finds nothing to do)
        tuple(f for f in meta.get("finalizers") or () if f != FEDERATION_FINALIZER),
        bool(current_refusal(obj)),  # the one status change admission must hear of: a member refused it
    )


def _key_of(cluster: str, obj: dict[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return Key(cluster, str(obj.get("kind")), str(meta.get("namespace") or ""), str(meta.get("name")))


class HostRuntime:
    def __init__(
        self,
        kube: Kube,
        enqueue: Enqueue,
        *,
        on_members_changed: Callable[[], None],
        ignored: Callable[[str], None] = lambda _cause: None,
    ) -> None:
        self.kube, self.name, self.enqueue, self.ignored = kube, kube.name, enqueue, ignored
        self.on_members_changed = on_members_changed
        self.store = Store()
        self.watches: dict[str, ListWatch] = {}
        self._fingerprints: dict[Key, tuple[Any, ...]] = {}
        self._placed: dict[Key, Any] = {}  # each PinApp's placement rows, as last seen
        self._member_generations: dict[str, Any] = {}
        self.configs = ConfigWatches(kube, self._on_config)  # per project namespace: the read is granted there only

    def start(self) -> None:
        for res in WORKLOADS.values():
            self._watch(res, self._on_workload)
        self._watch(QUOTA, self._on_quota)
        self._watch(MEMBERS, self._on_member)
        self._watch(REVISION, None, MANAGED_SELECTOR)

    def _watch(self, res: Resource, handler: Callable[[str, dict[str, Any]], None] | None, selector: str = "") -> None:
        self.watches[res.kind] = start_watch(self.kube, self.store, res, handler, selector or None)

    def restart_crashed(self) -> None:
        self.configs.restart_crashed()
        for kind, watch in list(self.watches.items()):
            if watch.crashed:
                log.warning("host: restarting the %s watch (%s)", kind, watch.last_error)
                handler = {QUOTA.kind: self._on_quota, MEMBERS.kind: self._on_member, REVISION.kind: None}.get(
                    kind, self._on_workload
                )
                res = WORKLOADS.get(kind) or {QUOTA.kind: QUOTA, MEMBERS.kind: MEMBERS, REVISION.kind: REVISION}[kind]
                self._watch(res, handler, MANAGED_SELECTOR if kind == REVISION.kind else "")

    def wait_synced(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        return all(w.synced.wait(max(0.0, deadline - time.monotonic())) for w in list(self.watches.values()))

    def synced(self) -> bool:
        return all(w.synced.is_set() for w in list(self.watches.values()))

    def close(self, timeout: float = 5.0) -> bool:
        watches = [*self.watches.values(), *self.configs.close()]
        for watch in watches:
            watch.stop()
        deadline = time.monotonic() + timeout
        return all([w.join(max(0.0, deadline - time.monotonic())) for w in watches])

    # -- events -----------------------------------------------------------------------------------

    def _on_workload(self, event: str, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata") or {}
        key = _key_of(self.name, obj)
        admission = Key(self.name, ADMISSION, key.namespace, "")
        if key.kind == TARGET_KIND:
            self._scalers_follow(key, None if event == "DELETED" else obj)
        if event == "DELETED":
            self._fingerprints.pop(key, None)
            if not any(k.namespace == key.namespace for k in list(self._fingerprints)):
                self.configs.drop(key.namespace)  # its last workload: nothing there needs copies any more
            self.enqueue(admission, "host_deleted")
            self.enqueue(key, "host_deleted")  # shards of an object deleted without our finalizer are swept
            return
        fingerprint = _fingerprint(obj)
        if event == "MODIFIED" and self._fingerprints.get(key) == fingerprint:
            self.ignored("host_status_only")
            return
        self._fingerprints[key] = fingerprint
        self.configs.ensure(key.namespace)
        self.enqueue(admission, "host_change")
        if condition_of(obj, ADMITTED) or meta.get("deletionTimestamp"):
            self.enqueue(key, "host_change")
        else:
            # not decided yet: its reconcile would only wait for admission, which queues it once it decides
            self.ignored("host_not_admitted")

    def _scalers_follow(self, key: Key, obj: dict[str, Any] | None) -> None:
        """Queue the PinScalers targeting PinApp ``key`` when its placement moved: nothing else would until the
        resync, and meanwhile their HPAs would bound the shards the PinApp had (a lost member's among them)."""
        rows = None if obj is None else ((obj.get("status") or {}).get("placement") or {}).get("clusters")
        if self._placed.get(key) == rows:
            return
        if rows is None:
            self._placed.pop(key, None)
        else:
            self._placed[key] = rows
        for scaler in self.store.list("PinScaler", key.namespace):
            if target_name(scaler) == key.name:
                self.enqueue(_key_of(self.name, scaler), "target_placed")

    def _on_quota(self, _event: str, obj: dict[str, Any]) -> None:
        namespace = str((obj.get("metadata") or {}).get("namespace") or "")
        self.enqueue(Key(self.name, ADMISSION, namespace, ""), "quota")

    def _on_config(self, _event: str, obj: dict[str, Any]) -> None:
        """A project's Secret or ConfigMap changed: its workloads' reconciles refresh the copies and checksums."""
        namespace = str((obj.get("metadata") or {}).get("namespace") or "")
        for key in self.all_keys():
            if key.namespace == namespace:
                self.enqueue(key, "config")

    def _on_member(self, event: str, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata") or {}
        name, generation = str(meta.get("name")), meta.get("generation")
        if event == "DELETED":
            self._member_generations.pop(name, None)
        elif event == "MODIFIED" and self._member_generations.get(name) == generation:
            return  # only its status changed (our own write)
        else:
            self._member_generations[name] = generation
        self.on_members_changed()

    # -- reads ------------------------------------------------------------------------------------

    def workload(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self.store.get(kind, namespace, name)

    def workloads(self, namespace: str | None = None) -> list[dict[str, Any]]:
        return [obj for kind in WORKLOADS for obj in self.store.list(kind, namespace)]

    def quota(self, namespace: str) -> dict[str, Any] | None:
        items = self.store.list(QUOTA.kind, namespace)
        return items[0] if items else None

    def members(self) -> list[dict[str, Any]]:
        return self.store.list(MEMBERS.kind)

    def revisions(self, kind: str, name: str, namespace: str) -> list[dict[str, Any]]:
        return self.store.list(REVISION.kind, namespace, label_selector=revision_selector(kind, name))

    def all_keys(self) -> list[Key]:
        keys = []
        for obj in self.workloads():
            meta = obj.get("metadata") or {}
            keys.append(Key(self.name, str(obj.get("kind")), str(meta.get("namespace") or ""), str(meta.get("name"))))
        return keys

    def remember(self, obj: dict[str, Any]) -> None:
        """A write's result, so the next decision sees it before the watch catches up. An object being
        deleted with no finalizer left is gone already: it is dropped, never put back (its DELETED event
        may have arrived first, and a zombie would hold its project's grant forever)."""
        meta = obj.get("metadata") or {}
        if meta.get("deletionTimestamp") and not meta.get("finalizers"):
            self.store.apply(str(obj.get("kind")), "DELETED", obj)
            return
        self.store.put_if_newer(str(obj.get("kind")), obj)

    # -- writes -----------------------------------------------------------------------------------

    def patch_status(self, obj: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
        """Merge ``status`` into a host workload's status, guarded by its resourceVersion: two writers
        (admission and the workload's reconcile) can never undo each other's conditions. On a conflict
        the object is re-read into the store and ``Conflict`` raised, so the caller decides again."""
        return self._guarded(obj, {"status": status}, sub="status")

    def patch_metadata(self, obj: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
        """Merge ``metadata`` (finalizers), guarded like ``patch_status``."""
        return self._guarded(obj, {"metadata": metadata}, sub=None)

    def _guarded(self, obj: dict[str, Any], body: dict[str, Any], *, sub: str | None) -> dict[str, Any]:
        meta = obj["metadata"]
        res = WORKLOADS[str(obj["kind"])]
        guarded = {**body, "metadata": {**body.get("metadata", {}), "resourceVersion": meta.get("resourceVersion")}}
        try:
            result = self.kube.patch(res, meta.get("namespace"), meta["name"], guarded, sub=sub)
        except Conflict:
            try:
                self.remember(self.kube.get(res, meta.get("namespace"), meta["name"]))
            except NotFound:
                self.store.apply(str(obj["kind"]), "DELETED", obj)
            raise
        self.remember(result)
        return result
