"""Helpers every kind's translation shares: owner references, labels, pod templates, canonical output."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

from pincompute import API_VERSION
from pincompute.labels import CONFIGS_HASH_ANNOTATION, KIND_LABEL, RESTARTED_AT_ANNOTATION, WORKLOAD_LABEL
from pincompute.placement import Placement
from pincompute.runtime import Identity, RuntimeProfile, inject
from pincompute.specs import Workload

W = TypeVar("W", bound=Workload)


@dataclass(frozen=True)
class Context(Generic[W]):
    """Everything a kind's translator may read; nothing else (no clock, no network).

    ``Context[PinApp]`` is what the PinApp translator gets: ``workload`` is already the typed spec.
    """

    workload: W
    cr: Mapping[str, Any]
    profile: RuntimeProfile
    placement: Placement
    capabilities: frozenset[str]

    @property
    def name(self) -> str:
        return self.workload.meta.name

    @property
    def namespace(self) -> str:
        return self.workload.meta.namespace or "default"

    def identity(self, zone: str | None = None, shard: int | None = None) -> Identity:
        meta = self.workload.meta
        return Identity(
            project=meta.project,
            team=meta.team,
            cost_center=meta.cost_center,
            workload=meta.name,
            kind=self.workload.kind,
            tier=meta.tier.value,
            cluster=self.placement.cluster,
            zone=self.placement.zone if zone is None else zone,
            shard=str(self.placement.shard_index if shard is None else shard),
        )

    def selector(self, **extra: str) -> dict[str, str]:
        return {WORKLOAD_LABEL: self.name, KIND_LABEL: self.workload.kind, **extra}

    def labels(self, identity: Identity | None = None, **extra: str) -> dict[str, str]:
        """User labels from the CR, then the platform's (which win: selectors depend on them)."""
        return {**dict(self.workload.meta.labels), **self.profile.labels_for(identity or self.identity()), **extra}

    def metadata(self, name: str, identity: Identity | None = None, **extra_labels: str) -> dict[str, Any]:
        return {
            "name": name,
            "namespace": self.namespace,
            "labels": self.labels(identity, **extra_labels),
            "ownerReferences": [owner_reference(self.cr)],
        }

    def pod_template(
        self,
        pod_spec: dict[str, Any],
        identity: Identity | None = None,
        annotations: Mapping[str, str] | None = None,
        **extra_labels: str,
    ) -> dict[str, Any]:
        """Inject the runtime profile and stamp labels/annotations; restartedAt rolls the pods."""
        identity = identity or self.identity()
        spec, _ = inject(without_roll_on_change(pod_spec), self.profile, identity)
        notes = {**self.profile.annotations_for(self.workload.kind), **(annotations or {})}
        restarted_at = self.workload.operations.restarted_at
        if restarted_at:
            notes[RESTARTED_AT_ANNOTATION] = restarted_at
        configs = ((self.cr.get("metadata") or {}).get("annotations") or {}).get(CONFIGS_HASH_ANNOTATION)
        if configs:
            notes[CONFIGS_HASH_ANNOTATION] = str(configs)  # the shard's Secrets/ConfigMaps changed: roll the pods
        return {"metadata": {"labels": self.labels(identity, **extra_labels), "annotations": notes}, "spec": spec}


def without_roll_on_change(pod_spec: Mapping[str, Any]) -> dict[str, Any]:
    """The pod spec without the references' ``rollOnChange`` (the federation's, unknown to Kubernetes)."""
    spec = copy.deepcopy(dict(pod_spec))
    refs: list[Any] = []
    for group in ("containers", "initContainers", "sidecars"):
        for container in spec.get(group) or []:
            refs += [(env.get("valueFrom") or {}).get(k) for env in container.get("env") or [] for k in _KEY_REFS]
            refs += [source.get(k) for source in container.get("envFrom") or [] for k in ("secretRef", "configMapRef")]
    for volume in spec.get("volumes") or []:
        refs += [volume.get("secret"), volume.get("configMap")]
        for source in (volume.get("projected") or {}).get("sources") or []:
            refs += [source.get("secret"), source.get("configMap")]
    for ref in refs:
        if isinstance(ref, dict):
            ref.pop("rollOnChange", None)
    return spec


_KEY_REFS = ("secretKeyRef", "configMapKeyRef")


def owner_reference(cr: Mapping[str, Any]) -> dict[str, Any]:
    """Controller reference to the CR so Kubernetes garbage-collects everything it made."""
    metadata = cr.get("metadata") or {}
    return {
        "apiVersion": API_VERSION,
        "kind": cr["kind"],
        "name": metadata["name"],
        "uid": metadata.get("uid") or "",
        "controller": True,
        "blockOwnerDeletion": True,
    }


def add_env(pod_spec: dict[str, Any], env: list[dict[str, Any]], groups: tuple[str, ...] = ("containers",)) -> None:
    """Prepend platform env to user containers, so later user values may refer to them with $(NAME)."""
    for group in groups:
        for container in pod_spec.get(group) or []:
            container["env"] = copy.deepcopy(env) + list(container.get("env") or [])


def add_volume(
    pod_spec: dict[str, Any], volume: dict[str, Any], mount: dict[str, Any], groups: tuple[str, ...] = ("containers",)
) -> None:
    pod_spec.setdefault("volumes", []).append(volume)
    for group in groups:
        for container in pod_spec.get(group) or []:
            if group == "initContainers" and container.get("restartPolicy") != "Always":
                continue
            container.setdefault("volumeMounts", []).append(dict(mount))


def content_hash(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


@overload
def canonical(value: dict[str, Any]) -> dict[str, Any]: ...


@overload
def canonical(value: object) -> object: ...


def canonical(value: object) -> object:
    """Recursively key-sorted copy, so serialising the output is byte-identical run after run."""
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    return value


def object_key(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    metadata = obj.get("metadata") or {}
    return (
        str(obj.get("apiVersion")),
        str(obj.get("kind")),
        str(metadata.get("namespace") or ""),
        str(metadata.get("name")),
    )
