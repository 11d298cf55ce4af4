"""Watch a member's pods: give each its files and its kwok rules, and forget it when it goes.

A pod becomes Running only once it is set up: kwok's pod-ready stage waits for the annotation
``SANDBOX_ANNOTATION`` that the watcher adds last (as a kubelet starts a pod's containers after creating
them), so a client that sees Running gets the pod's own log and shell, never the placeholder rules.
Pods are set up by a few workers in parallel; events of one pod always go to the same worker, in order.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from .. import kwokcfg
from . import podconfigs, podfs

log = logging.getLogger(__name__)
SANDBOX_ANNOTATION = "pods.pinconsole.dev/sandbox"
# A pod labelled ``pods.pinconsole.dev/sandbox: "off"`` is not set up (bulk benchmarks: ~15 ms of this process
# and 4 API calls per pod); kwok's pod-ready stage accepts the label instead of the annotation. Its exec is
# refused and its log is the placeholder.
SANDBOX_LABEL = SANDBOX_ANNOTATION
OPT_OUT = f"{SANDBOX_LABEL}=off"
WORKERS = 6
FINISHED_PHASES = ("Succeeded", "Failed")  # its program has ended: the log pump writes no more for it


@dataclass(frozen=True)
class Pod:
    namespace: str
    name: str
    uid: str
    fs: Path
    console_log: Path
    labels: tuple[tuple[str, str], ...] = ()  # the pod's labels (kind, workload: the log archive's labels)
    containers: tuple[str, ...] = ()
    env: tuple[tuple[str, podconfigs.Env], ...] = ()  # each container's variables, as a kubelet sets them

    def env_of(self, container: str) -> podconfigs.Env:
        """``container``'s variables (the first container's when none is named, as kubectl exec picks)."""
        for name, env in self.env:
            if name == container or not container:
                return env
        return ()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class _Event:
    kind: str  # ADDED | MODIFIED | DELETED
    namespace: str
    name: str
    uid: str
    annotations: dict[str, str]
    containers: tuple[str, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    pod: dict[str, Any] = field(default_factory=dict, compare=False)  # the object (its env and volumes)


def container_names(pod: dict[str, Any]) -> tuple[str, ...]:
    """The pod's containers and sidecars (init containers that keep running): those an exec can be for."""
    spec = pod.get("spec") or {}
    sidecars = [c["name"] for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    return (*[c["name"] for c in spec.get("containers") or []], *sidecars)


class Registry:
    """The pods this supervisor has set up (read by the broker and the log pump)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pods: dict[str, Pod] = {}
        self._finished: set[tuple[str, str]] = set()  # (key, uid) of pods whose phase is Succeeded or Failed

    def get(self, key: str) -> Pod | None:
        with self._lock:
            return self._pods.get(key)

    def put(self, pod: Pod) -> None:
        with self._lock:
            self._pods[pod.key] = pod

    def pop(self, key: str) -> Pod | None:
        with self._lock:
            self._finished = {f for f in self._finished if f[0] != key}
            return self._pods.pop(key, None)

    def finish(self, key: str, uid: str) -> None:
        with self._lock:
            self._finished.add((key, uid))

    def all(self) -> list[Pod]:
        with self._lock:
            return list(self._pods.values())

    def running(self) -> list[Pod]:
        """The pods whose program still runs (it prints): not those that finished."""
        with self._lock:
            return [p for p in self._pods.values() if (p.key, p.uid) not in self._finished]


class PodWatcher:
    """List+watch pods of every namespace; set each new pod up, tear each deleted pod down."""

    def __init__(
        self,
        api: client.ApiClient,
        registry: Registry,
        pods_dir: Path,
        podlogs_dir: Path,
        podlogs_in_jail: str,
        on_delete: Callable[[str], None],
        on_setup: Callable[[Pod], None],
        on_event: Callable[[dict[str, Any]], None] = lambda pod: None,
    ) -> None:
        self.core = client.CoreV1Api(api)
        self.custom = client.CustomObjectsApi(api)
        self.registry = registry
        self.pods_dir = pods_dir
        self.podlogs_dir = podlogs_dir
        self.podlogs_in_jail = podlogs_in_jail
        self.on_delete = on_delete
        self.on_setup = on_setup
        self.on_event = on_event  # every event of a set-up pod (its ephemeral containers: ``ephemeral``)
        self.stop = threading.Event()
        self._queues: list[queue.Queue[_Event | None]] = [queue.Queue() for _ in range(WORKERS)]

    def run(self) -> None:
        workers = [threading.Thread(target=self._work, args=(q,), daemon=True) for q in self._queues]
        for t in workers:
            t.start()
        try:
            self._list_and_watch()
        finally:
            for q in self._queues:
                q.put(None)

    def _submit(
        self,
        kind: str,
        namespace: str,
        name: str,
        uid: str = "",
        annotations: Any = None,
        containers: Any = (),
        labels: Any = None,
        pod: dict[str, Any] | None = None,
    ) -> None:
        labelled = tuple((labels or {}).items())
        ev = _Event(kind, namespace, name, uid, dict(annotations or {}), tuple(containers), labelled, pod or {})
        self._queues[zlib.crc32(f"{namespace}/{name}".encode()) % WORKERS].put(ev)

    def _submit_obj(self, kind: str, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        key = f"{meta['namespace']}/{meta['name']}"
        known = self.registry.get(key)
        if kind != "DELETED" and (obj.get("status") or {}).get("phase") in FINISHED_PHASES:
            self.registry.finish(key, meta["uid"])  # also one found finished on a relist, before it is set up
        if kind != "DELETED" and known and known.uid == meta["uid"]:
            self.on_event(obj)
            return  # set up already: most events are kwok's status patches
        if kind != "DELETED" and (meta.get("labels") or {}).get(SANDBOX_LABEL) == "off":
            return
        self._submit(
            kind,
            meta["namespace"],
            meta["name"],
            meta["uid"],
            meta.get("annotations"),
            container_names(obj),
            meta.get("labels"),
            obj,
        )

    def _work(self, q: queue.Queue[_Event | None]) -> None:
        while (ev := q.get()) is not None:
            try:
                if ev.kind == "DELETED":
                    self._forget(ev.namespace, ev.name)
                else:
                    self._ensure(ev.namespace, ev.name, ev.uid, ev.annotations, ev.containers, ev.labels, ev.pod)
            except (ApiException, OSError) as exc:  # e.g. its namespace is terminating; the next event retries
                log.warning("pod %s/%s: %s", ev.namespace, ev.name, exc)

    def _list_and_watch(self) -> None:
        while not self.stop.is_set():
            try:
                rv = self._relist()
                self._watch(rv)
            except Exception:
                log.exception("pod watch failed; relisting")
                self.stop.wait(1.0)

    def _relist(self) -> str:
        # Plain dicts (no model objects): the watcher reads metadata only, and kwok patches every pod often.
        resp = self.core.list_pod_for_all_namespaces(_preload_content=False)
        pods = json.loads(resp.data)
        seen = set()
        for obj in pods["items"]:
            meta = obj["metadata"]
            seen.add(f"{meta['namespace']}/{meta['name']}")
            self._submit_obj("ADDED", obj)
        for pod in self.registry.all():
            if pod.key not in seen:
                self._submit("DELETED", pod.namespace, pod.name)
        self._prune_orphans(seen)
        return str(pods["metadata"]["resourceVersion"])

    def _watch(self, rv: str) -> None:
        w = watch.Watch(return_type="object")
        for ev in w.stream(self.core.list_pod_for_all_namespaces, resource_version=rv, timeout_seconds=240):
            if self.stop.is_set():
                w.stop()
                return
            if ev["type"] == "ERROR":
                return  # 410 Gone and friends: relist
            if ev["type"] != "BOOKMARK":
                self._submit_obj(ev["type"], ev["object"])

    def _ensure(
        self,
        namespace: str,
        name: str,
        uid: str,
        annotations: dict[str, str],
        containers: tuple[str, ...],
        labels: tuple[tuple[str, str], ...] = (),
        obj: dict[str, Any] | None = None,
    ) -> None:
        known = self.registry.get(f"{namespace}/{name}")
        if known and known.uid == uid:
            return
        if known:
            self.on_delete(known.key)  # the same name, a new pod: its predecessor's shells end
        fs, fresh = podfs.ensure_pod_fs(self.pods_dir, namespace, name, uid)
        console = self.podlogs_dir / namespace / f"{name}.log"
        console.parent.mkdir(parents=True, exist_ok=True)
        if fresh or not console.exists():
            console.unlink(missing_ok=True)
            console.with_name(console.name + ".1").unlink(missing_ok=True)
            console.touch(mode=0o644)
        jail_log = f"{self.podlogs_in_jail}/{namespace}/{name}.log"
        for kind, body in kwokcfg.pod_rules(namespace, name, uid, jail_log, podfs.POD_UID, containers).items():
            self._apply(kind, namespace, name, uid, body)
        env = podconfigs.pod_env(self.core, obj) if obj else ()
        if fresh and obj:
            podconfigs.write_volume_files(self.core, obj, fs, podfs.chown)
        pod = Pod(namespace, name, uid, fs, console, labels, containers, env)
        if fresh:
            self.on_setup(pod)
        self.registry.put(pod)
        if SANDBOX_ANNOTATION not in annotations:
            patch = {"metadata": {"annotations": {SANDBOX_ANNOTATION: "ready"}, "uid": uid}}
            try:
                resp = self.core.patch_namespaced_pod(name, namespace, patch, _preload_content=False)
                resp.drain_conn()  # the body is not needed: no model object to build
                resp.release_conn()
            except ApiException as exc:
                if exc.status not in (404, 409, 422):  # gone, or a new pod under that name: its own event follows
                    raise

    def _apply(self, kind: str, namespace: str, name: str, uid: str, body: dict[str, Any]) -> None:
        plural = kwokcfg.PER_POD_KINDS[kind]
        args = (kwokcfg.KWOK_GROUP, kwokcfg.KWOK_VERSION, namespace, plural)
        try:
            self.custom.create_namespaced_custom_object(*args, body)
            return
        except ApiException as exc:
            if exc.status != 409:
                raise
        current = self.custom.get_namespaced_custom_object(*args, name)
        owners = current["metadata"].get("ownerReferences") or []
        if any(o.get("uid") == uid for o in owners):
            return
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        self.custom.replace_namespaced_custom_object(*args, name, body)  # left by the pod's predecessor

    def _forget(self, namespace: str, name: str) -> None:
        key = f"{namespace}/{name}"
        self.registry.pop(key)  # no new session from now on (the broker checks the registry)
        self.on_delete(key)  # its running sessions end
        podfs.remove_pod_fs(self.pods_dir, namespace, name)
        (self.podlogs_dir / namespace / f"{name}.log").unlink(missing_ok=True)
        (self.podlogs_dir / namespace / f"{name}.log.1").unlink(missing_ok=True)

    def _prune_orphans(self, seen: set[str]) -> None:
        """Files of pods deleted while the supervisor was down, and empty namespace folders (a namespace
        folder is only removed here, never while workers may be creating a pod's folder in it)."""
        for ns_dir in [d for d in self.pods_dir.iterdir() if d.is_dir()]:
            for pdir in list(ns_dir.iterdir()):
                if f"{ns_dir.name}/{pdir.name}" not in seen:
                    self._forget(ns_dir.name, pdir.name)
        namespaces = {key.split("/", 1)[0] for key in seen}
        for parent in (self.pods_dir, self.podlogs_dir):
            for ns_dir in [d for d in parent.iterdir() if d.is_dir() and d.name not in namespaces]:
                with contextlib.suppress(OSError):
                    ns_dir.rmdir()  # empty once its pods are gone
