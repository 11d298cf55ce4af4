"""The fake host apiserver the workload pages read and write (``FakeHost``), its ``fake_host`` and ``web``
fixtures, and builders of what a host or member holds (pods, events, revisions)."""

from __future__ import annotations

import copy
import html
from typing import Any

import pytest

from base.errors import Conflict, NotFound, Unavailable
from tests.support.factories import HOST, fill, make_cluster, make_quota, workload_cr
from tests.support.fakes import FilledCache

HX = {"HTTP_HX_REQUEST": "true"}


URL = "/workloads/ads/PinApp/web/"


def text(response) -> str:
    return html.unescape(response.content.decode())


class FakeHost:
    """The host apiserver's workload objects, mirrored into the host watch cache on every write."""

    def __init__(self, cache: Any) -> None:
        self.cache, self.objects, self.down, self.version = cache, {}, False, 100

    def put(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.version += 1
        obj = copy.deepcopy(obj)
        before = self.objects.get((obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"]))
        generation = int((before or {}).get("metadata", {}).get("generation") or 0)
        if before is None or before.get("spec") != obj.get("spec"):  # as the apiserver: only a spec change
            generation += 1
        obj["metadata"]["resourceVersion"] = str(self.version)
        obj["metadata"]["generation"] = generation
        obj["metadata"].setdefault("uid", f"uid-{obj['metadata']['name']}")
        self.objects[(obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"])] = obj
        fill({HOST: self.cache}, HOST, obj)
        return copy.deepcopy(obj)

    def _check(self) -> None:
        if self.down:
            raise Unavailable("update on host: the host's apiserver is unreachable", retry_after=5)

    def get(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        self._check()
        try:
            return copy.deepcopy(self.objects[(kind, namespace, name)])
        except KeyError:
            raise NotFound("not found") from None

    def list_namespace(self, namespace: str) -> list[dict[str, Any]]:
        self._check()
        return [copy.deepcopy(obj) for (_, ns, _), obj in self.objects.items() if ns == namespace]

    def list_kind(self, kind: str, namespace: str) -> list[dict[str, Any]]:
        return [obj for obj in self.list_namespace(namespace) if obj["kind"] == kind]

    def patch(self, kind: str, namespace: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
        live = self.get(kind, namespace, name)
        if body.get("metadata", {}).get("resourceVersion") not in (None, live["metadata"]["resourceVersion"]):
            raise Conflict("update: the object has been modified")

        def merge(into: dict[str, Any], change: dict[str, Any]) -> None:
            for key, value in change.items():
                if isinstance(value, dict) and isinstance(into.get(key), dict):
                    merge(into[key], value)
                else:
                    into[key] = value

        merge(live["spec"], body.get("spec") or {})
        return self.put(live)

    def replace(self, manifest: dict[str, Any]) -> dict[str, Any]:
        meta = manifest["metadata"]
        live = self.get(manifest["kind"], meta["namespace"], meta["name"])
        if meta.get("resourceVersion") != live["metadata"]["resourceVersion"]:
            raise Conflict("update: the object has been modified")
        return self.put({**manifest, "status": live.get("status", {})})

    def delete(self, kind: str, namespace: str, name: str, *, uid: str | None = None) -> None:
        self.get(kind, namespace, name)
        del self.objects[(kind, namespace, name)]


@pytest.fixture
def fake_host(project, caches, monkeypatch):
    make_cluster("host", role="host")
    make_quota("ondemand", 16, project="ads", mem_gib=64)
    fake = FakeHost(caches.setdefault(HOST, FilledCache({})))
    for name in ("get", "list_namespace", "list_kind", "patch", "replace", "delete"):
        monkeypatch.setattr(f"workloads.host.{name}", getattr(fake, name))
    return fake


def running_app(name: str = "web", **kwargs: Any) -> dict[str, Any]:
    obj = workload_cr(name, clusters=("member-a", "member-b"), **kwargs)
    obj["metadata"]["uid"] = f"uid-{name}"
    obj["status"] |= {
        "phase": "Running",
        "replicas": 2,
        "readyReplicas": 2,
        "currentRevision": f"pinapp-{name}-aaaaaaaaaa",
        "shards": [
            {
                "cluster": "member-a",
                "zone": "local-1a",
                "replicas": 1,
                "readyReplicas": 1,
                "state": "Ready",
                "message": "",
                "phase": "Running",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-22T00:01:00Z"}],
                "lastSeen": "2026-11-22T00:02:00Z",
            },
            {
                "cluster": "member-b",
                "zone": "local-1b",
                "replicas": 1,
                "readyReplicas": 0,
                "state": "Unknown",
                "message": "member unreachable since 2026-11-22T00:03:00Z",
                "phase": "Running",
                "conditions": [],
                "lastSeen": "2026-11-22T00:02:30Z",
                "unreachableSince": "2026-11-22T00:03:00Z",
            },
        ],
    }
    obj["status"]["conditions"] = [
        {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "fits",
         "lastTransitionTime": "2026-11-22T00:00:05Z"},
        {"type": "Ready", "status": "True", "reason": "AllShards", "message": "",
         "lastTransitionTime": "2026-11-22T00:01:00Z"},
    ]  # fmt: skip
    return obj


def pod(name: str, workload: str = "web", kind: str = "PinApp", namespace: str = "proj-ads") -> dict[str, Any]:
    return {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{name}",
            "labels": {"pincompute.io/workload": workload, "pincompute.io/kind": kind},
        },
        "spec": {"containers": [{"name": "app"}], "nodeName": "kwok-1"},
        "status": {"phase": "Running", "containerStatuses": [{"name": "app", "ready": True, "restartCount": 3}]},
    }


def event(name: str, kind: str, obj: str, reason: str, at: str, *, uid: str = "", warning: bool = False):
    return {
        "metadata": {"name": name, "namespace": "proj-ads"},
        "involvedObject": {"kind": kind, "name": obj, "namespace": "proj-ads", "uid": uid},
        "reason": reason,
        "message": f"{reason} of {obj}",
        "type": "Warning" if warning else "Normal",
        "lastTimestamp": at,
        "count": 1,
    }


def revision(number: int, replicas: int, image: str) -> dict[str, Any]:
    spec = workload_cr("web")["spec"] | {"replicas": replicas}
    spec["template"]["containers"][0]["image"] = image
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": f"pinapp-web-{'ab'[number % 2] * 10}",
            "namespace": "proj-ads",
            "creationTimestamp": f"2026-11-22T00:0{number}:00Z",
            "labels": {
                "pincompute.io/kind": "PinApp",
                "pincompute.io/workload": "web",
                "app.kubernetes.io/managed-by": "pincompute",
            },
            "ownerReferences": [{"uid": "uid-web", "kind": "PinApp", "name": "web"}],
        },
        "data": {"spec": spec},
        "revision": number,
    }


@pytest.fixture
def web(fake_host, caches):
    """``web`` (PinApp, 2 shards) with pods, events and two revisions; ``waiting`` over the grant."""
    fake_host.put(running_app())
    fake_host.put(workload_cr("waiting", admitted=False, clusters=()))
    host = caches[HOST]
    host.put("controllerrevisions", revision(1, 1, "registry.local/app:1"))
    host.put("controllerrevisions", revision(2, 2, "registry.local/app:2"))
    host.put("events", event("e1", "PinApp", "web", "Scheduled", "2026-11-22T00:00:06Z", uid="uid-web"))
    host.put("events", event("e2", "PinApp", "waiting", "QuotaExceeded", "2026-11-22T00:00:07Z"))
    shard = running_app()
    shard["metadata"]["uid"] = "shard-uid"
    member = fill(caches, "member-a", shard, pods=[pod("web-local-1a-abc"), pod("webby-1", workload="webby")])
    owned = {"uid": "dep-uid", "ownerReferences": [{"uid": "shard-uid"}]}
    member.put("deployments", {"metadata": {"name": "web-local-1a", "namespace": "proj-ads", **owned}})
    member.put("events", event("m1", "Pod", "web-local-1a-abc", "BackOff", "2026-11-22T00:04:00Z", warning=True))
    scaled = event("m2", "Deployment", "web-local-1a", "ScalingReplicaSet", "2026-11-22T00:03:30Z", uid="dep-uid")
    member.put("events", scaled)
    member.put("events", event("m3", "ReplicaSet", "web-local-1a-5f6", "SuccessfulCreate", "2026-11-22T00:03:40Z"))
    member.put("events", event("m4", "Pod", "webby-1", "Pulled", "2026-11-22T00:03:50Z"))  # another workload's
    fill(caches, "member-b")
    return fake_host


def edited_document(web: FakeHost, replicas: int) -> str:
    live = web.objects[("PinApp", "proj-ads", "web")]
    spec = copy.deepcopy(live["spec"]) | {"replicas": replicas}
    import yaml

    return yaml.safe_dump(
        {"apiVersion": "pincompute.io/v1", "kind": "PinApp", "metadata": {"name": "web"}, "spec": spec}
    )
