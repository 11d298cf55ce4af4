"""The workload API tests' fixtures: a fake host apiserver that mirrors every write into the host cache (so
writes go through the real services), a running ``web`` workload with pods, events and revisions, and throttle
counts cleared around each test."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.support.factories import HOST, fill, make_cluster, make_quota
from tests.support.fake_host import FakeHost, event, pod, revision, running_app
from tests.support.fakes import FilledCache


class ApiHost(FakeHost):
    """The fake host apiserver with creation (the pages' fake reads, patches, replaces and deletes)."""

    def create(self, manifest: dict[str, Any]) -> dict[str, Any]:
        meta = manifest["metadata"]
        if (manifest["kind"], meta["namespace"], meta["name"]) in self.objects:
            from base.errors import Conflict

            raise Conflict("create: already exists")
        obj = copy.deepcopy(manifest)
        obj["metadata"]["creationTimestamp"] = "2026-11-22T00:10:00Z"
        return self.put(obj)

    def delete(self, kind: str, namespace: str, name: str, *, uid: str | None = None) -> None:
        super().delete(kind, namespace, name, uid=uid)
        from pincompute.kinds import KINDS

        self.cache.store.apply(KINDS[kind].plural, "DELETED", {"metadata": {"name": name, "namespace": namespace}})


@pytest.fixture(autouse=True)
def fresh_rate_counts():
    """Throttle counts live in Redis (the cache's database) or in the process: every test starts with none."""
    from django.core.cache import cache

    from base.throttling import reset_limits

    cache.clear()
    reset_limits()
    yield
    cache.clear()
    reset_limits()


@pytest.fixture
def fake_host(project, caches, monkeypatch) -> ApiHost:
    make_cluster("host", role="host")
    make_quota("ondemand", 16, project="ads", mem_gib=64)
    fake = ApiHost(caches.setdefault(HOST, FilledCache({})))
    for name in ("get", "list_namespace", "list_kind", "create", "patch", "replace", "delete"):
        monkeypatch.setattr(f"workloads.host.{name}", getattr(fake, name))
    return fake


@pytest.fixture
def web(fake_host, caches) -> ApiHost:
    """``web`` (PinApp on two members, running) with pods, events and two revisions; ``waiting`` over the grant."""
    from tests.support.factories import workload_cr

    fake_host.put(running_app())
    fake_host.put(workload_cr("waiting", admitted=False, clusters=()))
    host = caches[HOST]
    host.put("controllerrevisions", revision(1, 1, "registry.local/app:1"))
    host.put("controllerrevisions", revision(2, 2, "registry.local/app:2"))
    host.put("events", event("e1", "PinApp", "web", "Scheduled", "2026-11-22T00:00:06Z", uid="uid-web"))
    host.put("events", event("e2", "PinApp", "waiting", "QuotaExceeded", "2026-11-22T00:00:07Z"))
    member = fill(caches, "member-a", pods=[pod("web-local-1a-abc")])
    member.put("events", event("m1", "Pod", "web-local-1a-abc", "BackOff", "2026-11-22T00:04:00Z", warning=True))
    fill(caches, "member-b")
    return fake_host


def client_for(user: Any) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client
