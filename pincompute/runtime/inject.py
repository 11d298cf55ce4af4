"""Inject the runtime profile into a pod spec: idempotent, never overwriting what the user wrote.

Idempotence is what lets the operator re-run translation on every event; the report is what lets the
portal show "what the platform added" and "where your value was kept".
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pincompute.runtime.profile import Identity, PlatformVolume, RuntimeProfile
from pincompute.tiers import Tier


@dataclass(frozen=True)
class InjectedItem:
    path: str
    summary: str


@dataclass(frozen=True)
class InjectionReport:
    """``added``: what this call put in; ``kept``: where a user value won over the platform's."""

    added: tuple[InjectedItem, ...] = ()
    kept: tuple[InjectedItem, ...] = ()


def inject(
    pod_spec: dict[str, Any], profile: RuntimeProfile, identity: Identity
) -> tuple[dict[str, Any], InjectionReport]:
    """Return a new pod spec with the kind's platform containers, volumes, env and priority class."""
    spec = copy.deepcopy(pod_spec)
    runtime = profile.for_kind(identity.kind)
    added: list[InjectedItem] = []
    kept: list[InjectedItem] = []
    env = [(name, identity.attribute(attr)) for name, attr in profile.env]
    volumes = [profile.volumes[name] for name in runtime.volumes]

    existing = {c.get("name"): c for c in spec.get("initContainers") or []}
    platform = []
    for name in runtime.containers:
        if name in existing:
            platform.append(existing[name])
            continue
        container = profile.containers[name].build()
        container["env"] = [{"name": n, "value": v} for n, v in env]
        container["volumeMounts"] = [{"name": v.name, "mountPath": v.mount_path} for v in volumes]
        platform.append(container)
        kind = "native sidecar" if profile.containers[name].role == "sidecar" else "init container"
        added.append(
            InjectedItem(
                f"spec.initContainers[name={name}]",
                f"{profile.containers[name].summary}; {kind}, image {container['image']}",
            )
        )
    others = [c for c in spec.get("initContainers") or [] if c.get("name") not in runtime.containers]
    if platform or others:
        spec["initContainers"] = platform + others

    present_volumes = {v.get("name") for v in spec.get("volumes") or []}
    for volume in volumes:
        if volume.name not in present_volumes:
            spec.setdefault("volumes", []).append(volume.build())
            added.append(InjectedItem(f"spec.volumes[name={volume.name}]", volume.summary))

    priority_class = Tier.parse(identity.tier).priority_class
    current = spec.get("priorityClassName")
    if current is None:
        spec["priorityClassName"] = priority_class
        added.append(InjectedItem("spec.priorityClassName", f"{priority_class} (tier {identity.tier})"))
    elif current != priority_class:
        message = f"kept user value {current!r} over {priority_class!r}"
        kept.append(InjectedItem("spec.priorityClassName", message))

    for group in ("initContainers", "containers"):
        for container in spec.get(group) or []:
            path = f"spec.{group}[name={container.get('name')}]"
            _inject_env(container, env, path, added, kept)
            _inject_mounts(container, volumes, path, added, kept)
    return spec, InjectionReport(tuple(added), tuple(kept))


def _inject_env(
    container: dict[str, Any],
    env: list[tuple[str, str]],
    path: str,
    added: list[InjectedItem],
    kept: list[InjectedItem],
) -> None:
    current = {e.get("name"): e for e in container.get("env") or []}
    new_names = []
    for name, value in env:
        if name not in current:
            container.setdefault("env", []).append({"name": name, "value": value})
            new_names.append(name)
        elif current[name].get("value") != value:
            kept.append(InjectedItem(f"{path}.env[{name}]", f"kept user value instead of {value!r}"))
    if new_names:
        added.append(InjectedItem(f"{path}.env", f"identity env {', '.join(new_names)}"))


def _inject_mounts(
    container: dict[str, Any],
    volumes: list[PlatformVolume],
    path: str,
    added: list[InjectedItem],
    kept: list[InjectedItem],
) -> None:
    mounts = container.get("volumeMounts") or []
    names = {m.get("name") for m in mounts}
    paths = {m.get("mountPath"): m.get("name") for m in mounts}
    for volume in volumes:
        if volume.name in names:
            continue
        if volume.mount_path in paths:
            kept.append(
                InjectedItem(
                    f"{path}.volumeMounts[{volume.mount_path}]",
                    f"kept user volume {paths[volume.mount_path]!r} at {volume.mount_path}",
                )
            )
            continue
        container.setdefault("volumeMounts", []).append({"name": volume.name, "mountPath": volume.mount_path})
        added.append(
            InjectedItem(f"{path}.volumeMounts[name={volume.name}]", f"{volume.summary} at {volume.mount_path}")
        )
