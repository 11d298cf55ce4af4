"""What a project's pod security level allows, checked at submission (before anything is written).

The members' namespaces enforce the same level with Pod Security admission, but there a refused pod
surfaces late and far away (a Deployment that never gets pods). Submission refuses it at once, naming
the field. The rules are the Kubernetes Pod Security Standards' for what PinCompute specs can express:
``baseline`` refuses privileged containers, added capabilities beyond the baseline set, hostPath volumes
and host namespaces; ``restricted`` also refuses privilege escalation and every added capability but
NET_BIND_SERVICE; ``privileged`` allows everything.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pincompute.errors import FieldError
from pincompute.specs.common import HOST_NAMESPACES
from pincompute.tenancy import PodSecurity

BASELINE_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
RESTRICTED_CAPABILITIES = frozenset({"NET_BIND_SERVICE"})


def pod_paths(kind: str, spec: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Where a kind's pod fields are: ``spec.template`` for PinApp, ``spec`` for the others (none for
    PinScaler)."""
    if kind == "PinScaler":
        return
    if kind == "PinApp":
        template = spec.get("template")
        if isinstance(template, Mapping):
            yield "spec.template", template
        return
    yield "spec", spec


def policy_violations(manifest: Mapping[str, Any], level: PodSecurity) -> list[FieldError]:
    """Every field ``level`` does not allow, each with its path and the level that refuses it."""
    if level is PodSecurity.PRIVILEGED:
        return []
    spec = manifest.get("spec")
    if not isinstance(spec, Mapping):
        return []
    why = f"not allowed by the project's pod security level ({level.value})"
    errors: list[FieldError] = []
    for base, pod in pod_paths(str(manifest.get("kind")), spec):
        for name in HOST_NAMESPACES:
            if pod.get(name) is True:
                errors.append(FieldError(f"{base}.{name}", f"sharing the node's namespaces is {why}"))
        for index, volume in enumerate(_items(pod.get("volumes"))):
            if "hostPath" in volume:
                errors.append(FieldError(f"{base}.volumes[{index}].hostPath", f"hostPath volumes are {why}"))
        for group in ("containers", "sidecars"):
            for index, container in enumerate(_items(pod.get(group))):
                errors += _container(f"{base}.{group}[{index}].securityContext", container, level, why)
    return errors


def _container(path: str, container: Mapping[str, Any], level: PodSecurity, why: str) -> list[FieldError]:
    context = container.get("securityContext")
    if not isinstance(context, Mapping):
        return []
    errors = []
    if context.get("privileged") is True:
        errors.append(FieldError(f"{path}.privileged", f"privileged containers are {why}"))
    allowed = RESTRICTED_CAPABILITIES if level is PodSecurity.RESTRICTED else BASELINE_CAPABILITIES
    added = (context.get("capabilities") or {}).get("add") if isinstance(context.get("capabilities"), Mapping) else []
    for index, capability in enumerate(added if isinstance(added, list) else []):
        if str(capability).upper().removeprefix("CAP_") not in allowed:
            errors.append(FieldError(f"{path}.capabilities.add[{index}]", f"adding capability {capability} is {why}"))
    if level is PodSecurity.RESTRICTED and context.get("allowPrivilegeEscalation") is True:
        errors.append(FieldError(f"{path}.allowPrivilegeEscalation", f"privilege escalation is {why}"))
    return errors


def _items(value: object) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []
