"""Cross-field checks every kind shares, run on the raw (possibly mistyped) dicts after the schema's type
checks: container names and sidecars, requests within limits, operations that name real containers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pincompute.errors import FieldError
from pincompute.quantity import GPU_RESOURCE, parse_cpu, parse_gpu, parse_memory
from pincompute.runtime.profile import load_profile
from pincompute.specs.common import RESERVED_PREFIX
from pincompute.specs.schema import join
from pincompute.specs.security_context import check_security_context


def check_pod(
    pod: Mapping[str, Any], path: str, errors: list[FieldError], reserved_env: frozenset[str] = frozenset()
) -> None:
    """Names must be unique and stay clear of what the platform injects."""
    profile = load_profile()
    reserved_names = profile.reserved_container_names()
    volumes = [v for v in list_or_empty(pod.get("volumes")) if isinstance(v, dict)]
    volume_names = {v["name"] for v in volumes if isinstance(v.get("name"), str)}  # any other type: reported
    check_security_context(pod.get("securityContext"), join(path, "securityContext"), errors, pod=True)
    seen: dict[str, str] = {}
    for group in ("containers", "sidecars"):
        for index, container in enumerate(list_or_empty(pod.get(group))):
            if not isinstance(container, dict):
                continue
            cpath = join(join(path, group), index)
            name = container.get("name")
            if isinstance(name, str):
                if name in reserved_names or name.startswith(RESERVED_PREFIX):
                    errors.append(FieldError(join(cpath, "name"), f"{name!r} is reserved for a platform container"))
                elif name in seen:
                    message = f"{name!r} is already used by {seen[name]}"
                    errors.append(FieldError(join(cpath, "name"), message))
                else:
                    seen[name] = cpath
            _check_container(container, cpath, volume_names, reserved_env, errors)
            check_security_context(container.get("securityContext"), join(cpath, "securityContext"), errors)
    names_seen: set[str] = set()
    for index, volume in enumerate(volumes):
        name = volume.get("name")
        if not isinstance(name, str):  # the schema reports it (an object here is no name, nor hashable)
            continue
        vpath = join(join(join(path, "volumes"), index), "name")
        if name.startswith(RESERVED_PREFIX):
            errors.append(FieldError(vpath, f"{name!r} is reserved for a platform volume"))
        elif name in names_seen:
            errors.append(FieldError(vpath, f"{name!r} is defined twice"))
        names_seen.add(name)


def _check_container(
    container: Mapping[str, Any],
    path: str,
    volume_names: set[str],
    reserved_env: frozenset[str],
    errors: list[FieldError],
) -> None:
    env_seen: set[str] = set()
    for index, env in enumerate(list_or_empty(container.get("env"))):
        if not isinstance(env, dict):
            continue
        epath = join(join(path, "env"), index)
        if "value" in env and "valueFrom" in env:
            errors.append(FieldError(epath, "set either value or valueFrom, not both"))
        name = env.get("name")
        if not isinstance(name, str):  # reported by the schema
            continue
        if name in reserved_env:
            errors.append(FieldError(join(epath, "name"), f"{name!r} is set by the platform for this kind"))
        elif name in env_seen:
            errors.append(FieldError(join(epath, "name"), f"{name!r} is set twice"))
        env_seen.add(name)
    for index, mount in enumerate(list_or_empty(container.get("volumeMounts"))):
        name = mount.get("name") if isinstance(mount, dict) else None
        if isinstance(name, str) and name not in volume_names:
            errors.append(
                FieldError(
                    join(join(join(path, "volumeMounts"), index), "name"), f"no volume named {name!r} in volumes"
                )
            )
    resources = container.get("resources")
    if isinstance(resources, dict):
        _check_requests_within_limits(resources, join(path, "resources"), errors)


def _check_requests_within_limits(resources: Mapping[str, Any], path: str, errors: list[FieldError]) -> None:
    requests, limits = resources.get("requests"), dict_or_empty(resources.get("limits"))
    if not isinstance(requests, dict):
        return
    parsers = {"cpu": parse_cpu, "memory": parse_memory, GPU_RESOURCE: parse_gpu}
    for key, parser in parsers.items():
        if key not in requests:
            continue
        try:
            request = parser(requests[key])
            limit = parser(limits[key]) if key in limits else None
        except (ValueError, TypeError):
            continue  # already reported by the field check
        if key == GPU_RESOURCE and limit != request:
            message = "GPU limits must be set and equal requests"
            errors.append(FieldError(join(join(path, "limits"), key), message))
        elif limit is not None and request > limit:
            message = f"request exceeds the limit {limits[key]}"
            errors.append(FieldError(join(join(path, "requests"), key), message))


def user_container_names(pod: Mapping[str, Any]) -> set[str]:
    return {
        c["name"]
        for g in ("containers", "sidecars")
        for c in list_or_empty(pod.get(g))
        if isinstance(c, dict) and isinstance(c.get("name"), str)
    }


def check_operations(spec: Mapping[str, Any], pod: Mapping[str, Any], errors: list[FieldError]) -> None:
    ops = spec.get("operations")
    if not isinstance(ops, dict):
        return
    restart = ops.get("restartContainer")
    container = restart.get("container") if isinstance(restart, dict) else None
    if isinstance(container, str) and container not in user_container_names(pod):
        errors.append(
            FieldError(
                "spec.operations.restartContainer.container", f"no container named {container!r} in this workload"
            )
        )


def list_or_empty(value: object) -> list[Any]:
    """A raw JSON value as a list, or [] when it is not one (its field check reports that)."""
    return value if isinstance(value, list) else []


def dict_or_empty(value: object) -> dict[str, Any]:
    """A raw JSON value as an object, or {} when it is not one (its field check reports that)."""
    return value if isinstance(value, dict) else {}
