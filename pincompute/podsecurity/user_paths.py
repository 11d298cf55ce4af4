"""From a field of a translated pod back to the field of the workload spec that put it there.

Translation keeps the user's containers in order, puts the user's sidecars after the platform's init containers
(matched here by name, as are volumes) and copies the pod-level fields as they are. What the platform added (its
containers and volumes) has no field in the spec: such a finding points at the pod and names the platform's part.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pincompute.podsecurity.controls import Pod, as_list, as_map

_ITEM = re.compile(r"^spec\.(initContainers|containers|ephemeralContainers|volumes)\[(\d+)\](.*)$")


def pod_base(manifest: Mapping[str, Any]) -> str:
    """Where a kind's pod fields are in its spec: ``spec.template`` for a PinApp, ``spec`` for the others."""
    return "spec.template" if manifest.get("kind") == "PinApp" else "spec"


def user_path(manifest: Mapping[str, Any], pod: Pod, native: str) -> tuple[str, str]:
    """``(path in the workload spec, who owns the field)``: the owner is "" for the user's own fields, else a
    phrase such as "the platform's container 'pincompute-security': " that starts the message."""
    base = pod_base(manifest)
    match = _ITEM.match(native)
    if match is None:
        if native.startswith("metadata."):
            return "metadata", "the pod's "
        return f"{base}.{native.removeprefix('spec.')}", ""
    group, index, rest = match.group(1), int(match.group(2)), match.group(3)
    item = as_map(as_list(pod.spec.get(group))[index])
    if group == "containers":
        return f"{base}.containers[{index}]{rest}", ""
    user_group = "volumes" if group == "volumes" else "sidecars"
    names = [as_map(entry).get("name") for entry in as_list(_user_pod(manifest).get(user_group))]
    if item.get("name") in names:
        return f"{base}.{user_group}[{names.index(item.get('name'))}]{rest}", ""
    what = "volume" if group == "volumes" else "container"
    return base, f"the platform's {what} {item.get('name')!r}: "


def _user_pod(manifest: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = as_map(manifest.get("spec"))
    return as_map(spec.get("template")) if manifest.get("kind") == "PinApp" else spec
