"""What a check of the Pod Security Standards is, and the pod it reads.

Modelled on Kubernetes' own ``k8s.io/pod-security-admission/policy``: one small check per control, each with the
check ID the apiserver uses, the control's name in the standard and its level, and the baseline checks a restricted
one replaces. A check reads a native pod (what translation produces, platform containers included) and answers one
``Finding`` per offending field, addressed in the pod, so the caller can point at the field the user wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pincompute.tenancy import PodSecurity

CONTAINER_GROUPS = ("initContainers", "containers", "ephemeralContainers")


@dataclass(frozen=True)
class Pod:
    """A native pod: its annotations and its spec (a PodSpec dict)."""

    annotations: Mapping[str, Any]
    spec: Mapping[str, Any]

    def containers(self) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """Every container with its path (``spec.containers[0]``), in the apiserver's order."""
        for group in CONTAINER_GROUPS:
            for index, container in enumerate(as_list(self.spec.get(group))):
                if isinstance(container, Mapping):
                    yield f"spec.{group}[{index}]", container

    def context(self) -> Mapping[str, Any]:
        return as_map(self.spec.get("securityContext"))

    def windows(self) -> bool:
        """Pods for Windows nodes are exempt from the Linux-only restricted controls (since v1.25)."""
        return as_map(self.spec.get("os")).get("name") == "windows"


@dataclass(frozen=True)
class Finding:
    """One offending field: ``path`` in the pod (``spec.containers[0].securityContext.privileged``), ``detail`` what
    the standard asks of it."""

    path: str
    detail: str


@dataclass(frozen=True)
class Control:
    id: str  # the apiserver's check ID, e.g. "seccompProfile_restricted"
    name: str  # the control's name in the standard, e.g. "Seccomp"
    level: PodSecurity
    check: Callable[[Pod], list[Finding]]
    overrides: tuple[str, ...] = ()  # baseline check IDs this restricted one replaces


def context_of(container: Mapping[str, Any]) -> Mapping[str, Any]:
    return as_map(container.get("securityContext"))


def as_map(value: object) -> Mapping[str, Any]:
    """A raw JSON value as an object, or {} (validation has reported any other type)."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []
