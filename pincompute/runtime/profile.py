"""Loading the versioned runtime profile (``profile-<version>.yaml``) into frozen, checked objects.

The profile is data, not code, so platform engineers can roll a new sidecar image by shipping a new
profile version; loading fails loudly when the file references something it does not define.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from pincompute.errors import PermanentError
from pincompute.labels import INJECTED_ANNOTATION, PROFILE_ANNOTATION

IDENTITY_ATTRIBUTES = (
    "project",
    "team",
    "cost_center",
    "workload",
    "kind",
    "tier",
    "tier_label",
    "cluster",
    "zone",
    "shard",
)


@dataclass(frozen=True)
class Identity:
    """Who a pod belongs to and where it runs; becomes env vars and labels."""

    project: str
    team: str
    cost_center: str
    workload: str
    kind: str
    tier: str
    cluster: str = ""
    zone: str = ""
    shard: str = "0"

    @property
    def tier_label(self) -> str:
        return self.tier.lower()

    def attribute(self, name: str) -> str:
        return str(getattr(self, name))


@dataclass(frozen=True)
class PlatformContainer:
    name: str
    role: str
    summary: str
    image: str
    manifest: Mapping[str, Any]

    def build(self) -> dict[str, Any]:
        """A fresh container dict; native sidecars carry ``restartPolicy: Always``."""
        container = copy.deepcopy(dict(self.manifest))
        container["name"] = self.name
        container["image"] = self.image
        if self.role == "sidecar":
            container["restartPolicy"] = "Always"
        return container


@dataclass(frozen=True)
class PlatformVolume:
    name: str
    summary: str
    mount_path: str
    source: Mapping[str, Any]

    def build(self) -> dict[str, Any]:
        return {"name": self.name, **copy.deepcopy(dict(self.source))}


@dataclass(frozen=True)
class KindRuntime:
    containers: tuple[str, ...]
    volumes: tuple[str, ...]


@dataclass(frozen=True)
class RuntimeProfile:
    version: str
    containers: Mapping[str, PlatformContainer]
    volumes: Mapping[str, PlatformVolume]
    env: tuple[tuple[str, str], ...]
    labels: tuple[tuple[str, str], ...]
    kinds: Mapping[str, KindRuntime]

    def for_kind(self, kind: str) -> KindRuntime:
        try:
            return self.kinds[kind]
        except KeyError:
            raise PermanentError(f"runtime profile {self.version} has no entry for kind {kind}") from None

    def reserved_container_names(self) -> frozenset[str]:
        return frozenset(self.containers)

    def reserved_volume_names(self) -> frozenset[str]:
        return frozenset(self.volumes)

    def labels_for(self, identity: Identity) -> dict[str, str]:
        return {
            key: source[1:] if source.startswith("=") else identity.attribute(source) for key, source in self.labels
        }

    def annotations_for(self, kind: str) -> dict[str, str]:
        """``pincompute.io/injected`` names what the profile adds, so the UI can show it; stable by design."""
        runtime = self.for_kind(kind)
        injected = [*runtime.containers, *runtime.volumes, "identity-env", "priority-class"]
        return {PROFILE_ANNOTATION: self.version, INJECTED_ANNOTATION: ",".join(injected)}


@functools.lru_cache(maxsize=8)
def load_profile(version: str = "v2") -> RuntimeProfile:
    """Load ``profile-<version>.yaml`` shipped inside this package (no network, cached)."""
    resource = resources.files("pincompute.runtime").joinpath(f"profile-{version}.yaml")
    if not resource.is_file():
        raise PermanentError(f"runtime profile {version!r} does not exist")
    return parse_profile(yaml.safe_load(resource.read_text(encoding="utf-8")))


def parse_profile(data: Mapping[str, Any]) -> RuntimeProfile:
    """Check references and roles so that a broken profile fails at load, not mid-reconcile."""
    containers = {}
    for name, raw in (data.get("containers") or {}).items():
        body = dict(raw)
        role = body.pop("role", None)
        if role not in ("init", "sidecar"):
            raise PermanentError(f"profile container {name}: role must be init or sidecar, got {role!r}")
        summary = str(body.pop("summary", name))
        containers[name] = PlatformContainer(name, role, summary, str(body.pop("image")), body)
    volumes = {
        name: PlatformVolume(name, str(raw.get("summary", name)), str(raw["mountPath"]), raw["source"])
        for name, raw in (data.get("volumes") or {}).items()
    }
    env = tuple((str(k), str(v)) for k, v in (data.get("env") or {}).items())
    labels = tuple((str(k), str(v)) for k, v in (data.get("labels") or {}).items())
    for _, source in (*env, *labels):
        if not source.startswith("=") and source not in IDENTITY_ATTRIBUTES:
            raise PermanentError(f"profile refers to unknown identity attribute {source!r}")
    kinds = {}
    for kind, raw in (data.get("kinds") or {}).items():
        runtime = KindRuntime(tuple(raw.get("containers") or ()), tuple(raw.get("volumes") or ()))
        missing = [n for n in runtime.containers if n not in containers]
        missing += [n for n in runtime.volumes if n not in volumes]
        if missing:
            raise PermanentError(f"profile kind {kind} refers to undefined {', '.join(missing)}")
        kinds[kind] = runtime
    return RuntimeProfile(str(data["version"]), containers, volumes, env, labels, kinds)
