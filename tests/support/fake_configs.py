"""The host's Secrets and ConfigMaps in memory, for the API contract tests that run over the fake host (the live
tests in tests/configs use the real one): ``configs.host_objects`` patched, ``db`` and ``settings`` in ``ads``,
``ml-secret-db`` in ``ml``."""

from __future__ import annotations

import copy
from typing import Any

from base.errors import Conflict, NotFound
from pincompute.configs import ConfigKind, ConfigSummary, manifest, summary

Store = dict[tuple[ConfigKind, str, str], tuple[dict[str, Any], dict[str, str]]]


class FakeConfigs:
    def __init__(self) -> None:
        self.objects: Store = {}
        self.version = 1

    def seed(self, kind: ConfigKind, project: str, name: str, data: dict[str, str]) -> None:
        body = manifest(kind, project=project, namespace=f"proj-{project}", name=name, data=data, version=1, actor="x")
        self.create(kind, body)

    def list_summaries(self, kind: ConfigKind, namespace: str, project: str) -> list[ConfigSummary]:
        found = [(m, d) for (k, ns, _), (m, d) in sorted(self.objects.items()) if k == kind and ns == namespace]
        return [summary(kind, m, {key: len(v) for key, v in d.items()}) for m, d in found]

    def read_data(
        self, kind: ConfigKind, namespace: str, project: str, name: str
    ) -> tuple[dict[str, Any], dict[str, str]]:
        if (kind, namespace, name) not in self.objects:
            raise NotFound(f"read {kind}/{name}: not found")
        meta, data = self.objects[(kind, namespace, name)]
        return copy.deepcopy(meta), dict(data)

    def read_summary(self, kind: ConfigKind, namespace: str, project: str, name: str) -> ConfigSummary:
        meta, data = self.read_data(kind, namespace, project, name)
        return summary(kind, meta, {k: len(v) for k, v in data.items()})

    def create(self, kind: ConfigKind, body: dict[str, Any]) -> None:
        meta = body["metadata"]
        key = (kind, meta["namespace"], meta["name"])
        if key in self.objects:
            raise Conflict(f"create {kind}/{meta['name']}: already exists")
        self.version += 1
        data = dict(body.get("stringData") or body.get("data") or {})
        self.objects[key] = ({"metadata": {**meta, "resourceVersion": str(self.version)}}, data)

    def replace(self, kind: ConfigKind, body: dict[str, Any], resource_version: str) -> None:
        meta = body["metadata"]
        key = (kind, meta["namespace"], meta["name"])
        if self.objects[key][0]["metadata"]["resourceVersion"] != resource_version:
            raise Conflict("replace: changed")
        del self.objects[key]
        self.create(kind, body)

    def delete(self, kind: ConfigKind, namespace: str, name: str, resource_version: str) -> None:
        self.objects.pop((kind, namespace, name), None)


def install(monkeypatch: Any) -> FakeConfigs:
    fake = FakeConfigs()
    for name in ("list_summaries", "read_data", "read_summary", "create", "replace", "delete"):
        monkeypatch.setattr(f"configs.host_objects.{name}", getattr(fake, name))
    fake.seed("Secret", "ads", "db", {"password": "ads-secret-value"})
    fake.seed("ConfigMap", "ads", "settings", {"mode": "fast"})
    fake.seed("Secret", "ml", "ml-secret-db", {"password": "ml-secret-value"})
    fake.seed("ConfigMap", "ml", "ml-secret-db", {"mode": "ml-secret"})
    return fake
