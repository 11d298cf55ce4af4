"""The restricted controls of the Pod Security Standards (v1.34), on top of baseline; three replace a baseline check."""

from __future__ import annotations

from collections.abc import Mapping

from pincompute.podsecurity.baseline import SECCOMP_TYPES
from pincompute.podsecurity.controls import Control, Finding, Pod, as_list, as_map, context_of
from pincompute.tenancy import PodSecurity

VOLUME_TYPES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "image",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)
RESTRICTED_CAPABILITIES = frozenset({"NET_BIND_SERVICE"})
OR_POD = "here or in the pod's securityContext"


def _volume_types(pod: Pod) -> list[Finding]:
    """A volume without a source is an emptyDir (the apiserver's default); any other source is refused."""
    findings = []
    for index, volume in enumerate(as_list(pod.spec.get("volumes"))):
        if not isinstance(volume, Mapping):
            continue
        sources = [key for key, value in volume.items() if key != "name" and value is not None]
        if sources and not VOLUME_TYPES.intersection(sources):
            allowed = ", ".join(sorted(VOLUME_TYPES))
            findings.append(
                Finding(f"spec.volumes[{index}].{sources[0]}", f"is not an allowed volume type ({allowed})")
            )
    return findings


def _privilege_escalation(pod: Pod) -> list[Finding]:
    if pod.windows():
        return []
    return [
        Finding(f"{path}.securityContext.allowPrivilegeEscalation", "must be false")
        for path, container in pod.containers()
        if context_of(container).get("allowPrivilegeEscalation") is not False
    ]


def _run_as_non_root(pod: Pod) -> list[Finding]:
    findings = []
    pod_says = pod.context().get("runAsNonRoot")
    if pod_says is False:
        findings.append(Finding("spec.securityContext.runAsNonRoot", "must not be false"))
    for path, container in pod.containers():
        says = context_of(container).get("runAsNonRoot")
        if says is False:
            findings.append(Finding(f"{path}.securityContext.runAsNonRoot", "must not be false"))
        elif says is None and pod_says is not True:
            findings.append(Finding(f"{path}.securityContext.runAsNonRoot", f"must be true ({OR_POD})"))
    return findings


def _run_as_user(pod: Pod) -> list[Finding]:
    places = [("spec", pod.context()), *((path, context_of(c)) for path, c in pod.containers())]
    return [
        Finding(f"{path}.securityContext.runAsUser", "must not be 0 (root)")
        for path, context in places
        if type(context.get("runAsUser")) is int and context["runAsUser"] == 0
    ]


def _seccomp(pod: Pod) -> list[Finding]:
    if pod.windows():
        return []
    findings = []
    pod_profile = pod.context().get("seccompProfile")
    if pod_profile is not None and as_map(pod_profile).get("type") not in SECCOMP_TYPES:
        findings.append(Finding("spec.securityContext.seccompProfile.type", "must be RuntimeDefault or Localhost"))
    pod_set = pod_profile is not None and as_map(pod_profile).get("type") in SECCOMP_TYPES
    for path, container in pod.containers():
        profile = context_of(container).get("seccompProfile")
        where = f"{path}.securityContext.seccompProfile.type"
        if profile is not None and as_map(profile).get("type") not in SECCOMP_TYPES:
            findings.append(Finding(where, "must be RuntimeDefault or Localhost"))
        elif profile is None and not pod_set:
            findings.append(Finding(where, f"must be set to RuntimeDefault or Localhost ({OR_POD})"))
    return findings


def _capabilities(pod: Pod) -> list[Finding]:
    if pod.windows():
        return []
    findings = []
    for path, container in pod.containers():
        capabilities = as_map(context_of(container).get("capabilities"))
        where = f"{path}.securityContext.capabilities"
        if "ALL" not in as_list(capabilities.get("drop")):
            findings.append(Finding(f"{where}.drop", 'must include "ALL"'))
        for index, capability in enumerate(as_list(capabilities.get("add"))):
            if capability not in RESTRICTED_CAPABILITIES:
                findings.append(
                    Finding(f"{where}.add[{index}]", f"must not add {capability!r} (only NET_BIND_SERVICE)")
                )
    return findings


RESTRICTED = (
    Control("restrictedVolumes", "Volume Types", PodSecurity.RESTRICTED, _volume_types, ("hostPathVolumes",)),
    Control("allowPrivilegeEscalation", "Privilege Escalation", PodSecurity.RESTRICTED, _privilege_escalation),
    Control("runAsNonRoot", "Running as Non-root", PodSecurity.RESTRICTED, _run_as_non_root),
    Control("runAsUser", "Running as Non-root user", PodSecurity.RESTRICTED, _run_as_user),
    Control("seccompProfile_restricted", "Seccomp", PodSecurity.RESTRICTED, _seccomp, ("seccompProfile_baseline",)),
    Control(
        "capabilities_restricted", "Capabilities", PodSecurity.RESTRICTED, _capabilities, ("capabilities_baseline",)
    ),
)
