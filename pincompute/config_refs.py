"""Which Secrets and ConfigMaps a workload's pods use, each with the field that names it, and the references that name
an object or key the project does not hold. Pure: the portal refuses such a workload at submission; the federation
copies exactly the referenced objects to the members.

A reference is what Kubernetes reads in a pod: ``env[].valueFrom.secretKeyRef`` / ``configMapKeyRef``,
``envFrom[].secretRef`` / ``configMapRef``, and the ``secret`` / ``configMap`` volumes (also as ``projected``
sources), with their ``items`` keys. One marked ``optional: true`` may be absent, as in Kubernetes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pincompute.configs import ConfigKind
from pincompute.errors import FieldError
from pincompute.specs.schema import join


@dataclass(frozen=True)
class ConfigRef:
    kind: ConfigKind
    name: str
    keys: tuple[str, ...]  # the keys it reads; () for the whole object
    path: str  # the field holding the name (a missing key is named at ``key_paths``)
    key_paths: tuple[str, ...]
    optional: bool


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def pod_of(manifest: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]] | None:
    """The pod template of a workload and its path: ``spec`` itself or ``spec.template`` (a PinApp's)."""
    spec = _dict(manifest.get("spec"))
    if "containers" in spec:
        return "spec", spec
    template = _dict(spec.get("template"))
    if "containers" in template:
        return "spec.template", template
    return None


def _ref(kind: ConfigKind, source: Mapping[str, Any], name_field: str, path: str, items: str = "items") -> ConfigRef:
    keys, key_paths = [], []
    if items == "key":
        if isinstance(source.get("key"), str):
            keys, key_paths = [source["key"]], [join(path, "key")]
    else:
        for index, item in enumerate(_list(source.get(items))):
            if isinstance(_dict(item).get("key"), str):
                keys.append(item["key"])
                key_paths.append(join(join(join(path, items), index), "key"))
    return ConfigRef(
        kind=kind,
        name=str(source.get(name_field) or ""),
        keys=tuple(keys),
        path=join(path, name_field),
        key_paths=tuple(key_paths),
        optional=source.get("optional") is True,
    )


def _container_refs(container: Mapping[str, Any], path: str) -> Iterator[ConfigRef]:
    for index, env in enumerate(_list(container.get("env"))):
        source = _dict(_dict(env).get("valueFrom"))
        at = join(join(join(path, "env"), index), "valueFrom")
        if "secretKeyRef" in source:
            yield _ref("Secret", _dict(source["secretKeyRef"]), "name", join(at, "secretKeyRef"), items="key")
        if "configMapKeyRef" in source:
            yield _ref("ConfigMap", _dict(source["configMapKeyRef"]), "name", join(at, "configMapKeyRef"), items="key")
    for index, env_from in enumerate(_list(container.get("envFrom"))):
        at = join(join(path, "envFrom"), index)
        if "secretRef" in _dict(env_from):
            yield _ref("Secret", _dict(env_from["secretRef"]), "name", join(at, "secretRef"))
        if "configMapRef" in _dict(env_from):
            yield _ref("ConfigMap", _dict(env_from["configMapRef"]), "name", join(at, "configMapRef"))


def _volume_refs(volume: Mapping[str, Any], path: str) -> Iterator[ConfigRef]:
    if "secret" in volume:
        yield _ref("Secret", _dict(volume["secret"]), "secretName", join(path, "secret"))
    if "configMap" in volume:
        yield _ref("ConfigMap", _dict(volume["configMap"]), "name", join(path, "configMap"))
    for index, source in enumerate(_list(_dict(volume.get("projected")).get("sources"))):
        at = join(join(join(path, "projected"), "sources"), index)
        if "secret" in _dict(source):
            yield _ref("Secret", _dict(source["secret"]), "name", join(at, "secret"))
        if "configMap" in _dict(source):
            yield _ref("ConfigMap", _dict(source["configMap"]), "name", join(at, "configMap"))


def references(manifest: Mapping[str, Any]) -> list[ConfigRef]:
    """Every Secret and ConfigMap reference of the workload's pods, in document order."""
    found = pod_of(manifest)
    if found is None:
        return []
    path, pod = found
    refs: list[ConfigRef] = []
    for group in ("containers", "sidecars"):
        for index, container in enumerate(_list(pod.get(group))):
            refs += _container_refs(_dict(container), join(join(path, group), index))
    for index, volume in enumerate(_list(pod.get("volumes"))):
        refs += _volume_refs(_dict(volume), join(join(path, "volumes"), index))
    return refs


def referenced(manifest: Mapping[str, Any]) -> set[tuple[ConfigKind, str]]:
    """The (kind, name) of every object the workload's pods use (the federation copies these)."""
    return {(r.kind, r.name) for r in references(manifest) if r.name}


def unresolved(refs: list[ConfigRef], held: Mapping[tuple[ConfigKind, str], frozenset[str]]) -> list[FieldError]:
    """Each reference to an object the project does not hold (at its name's field) or to a key the object lacks
    (at the key's field); optional ones may be absent."""
    problems: list[FieldError] = []
    for ref in refs:
        if ref.optional:
            continue
        keys = held.get((ref.kind, ref.name))
        if keys is None:
            problems.append(FieldError(ref.path, f"the project has no {ref.kind} named {ref.name!r}"))
            continue
        for key, key_path in zip(ref.keys, ref.key_paths, strict=True):
            if key not in keys:
                problems.append(FieldError(key_path, f"{ref.kind} {ref.name!r} has no key {key!r}"))
    return problems
