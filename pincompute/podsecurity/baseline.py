"""The baseline controls of the Pod Security Standards, as the apiserver v1.34 enforces them (version "latest")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pincompute.podsecurity.controls import Control, Finding, Pod, as_list, as_map, context_of
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
"""Compared as written: ``CAP_SYS_ADMIN`` or ``chown`` are not in the set, for the apiserver either."""
SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"})
SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
    }
)
"""The safe set of v1.32 to v1.36 (v1.37 adds two)."""
HOST_NAMESPACES = ("hostNetwork", "hostPID", "hostIPC")
_APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"
SECCOMP_TYPES = frozenset({"RuntimeDefault", "Localhost"})
APPARMOR_TYPES = SECCOMP_TYPES


def _host_process(pod: Pod) -> list[Finding]:
    places = [("spec", pod.context()), *((path, context_of(c)) for path, c in pod.containers())]
    return [
        Finding(f"{path}.securityContext.windowsOptions.hostProcess", "must not be true")
        for path, context in places
        if as_map(context.get("windowsOptions")).get("hostProcess") is True
    ]


def _host_namespaces(pod: Pod) -> list[Finding]:
    return [Finding(f"spec.{name}", "must not be true") for name in HOST_NAMESPACES if pod.spec.get(name) is True]


def _privileged(pod: Pod) -> list[Finding]:
    return [
        Finding(f"{path}.securityContext.privileged", "must not be true")
        for path, container in pod.containers()
        if context_of(container).get("privileged") is True
    ]


def _capabilities(pod: Pod) -> list[Finding]:
    findings = []
    for path, container in pod.containers():
        added = as_list(as_map(context_of(container).get("capabilities")).get("add"))
        for index, capability in enumerate(added):
            if capability not in BASELINE_CAPABILITIES:
                where = f"{path}.securityContext.capabilities.add[{index}]"
                findings.append(
                    Finding(where, f"must not add {capability!r} (allowed: {', '.join(sorted(BASELINE_CAPABILITIES))})")
                )
    return findings


def _host_path_volumes(pod: Pod) -> list[Finding]:
    return [
        Finding(f"spec.volumes[{index}].hostPath", "hostPath volumes are not allowed")
        for index, volume in enumerate(as_list(pod.spec.get("volumes")))
        if isinstance(volume, Mapping) and volume.get("hostPath") is not None
    ]


def _host_ports(pod: Pod) -> list[Finding]:
    return [
        Finding(f"{path}.ports[{index}].hostPort", "must not be set")
        for path, container in pod.containers()
        for index, port in enumerate(as_list(container.get("ports")))
        if isinstance(port, Mapping) and port.get("hostPort") not in (None, 0)
    ]


def _host_probes(pod: Pod) -> list[Finding]:
    """v1.34: probes and lifecycle hooks may not reach another host (``httpGet.host``, ``tcpSocket.host``)."""
    findings = []
    for path, container in pod.containers():
        handlers: list[tuple[str, Any]] = [
            (f"{path}.{probe}", container.get(probe)) for probe in ("livenessProbe", "readinessProbe", "startupProbe")
        ]
        lifecycle = as_map(container.get("lifecycle"))
        handlers += [(f"{path}.lifecycle.{hook}", lifecycle.get(hook)) for hook in ("postStart", "preStop")]
        for where, handler in handlers:
            for action in ("httpGet", "tcpSocket"):
                if as_map(as_map(handler).get(action)).get("host"):
                    findings.append(Finding(f"{where}.{action}.host", "must not be set"))
    return findings


def _app_armor(pod: Pod) -> list[Finding]:
    places = [("spec", pod.context()), *((path, context_of(c)) for path, c in pod.containers())]
    findings = [
        Finding(f"{path}.securityContext.appArmorProfile.type", "must be RuntimeDefault or Localhost")
        for path, context in places
        if context.get("appArmorProfile") is not None
        and as_map(context["appArmorProfile"]).get("type") not in APPARMOR_TYPES
    ]
    for key, value in sorted(pod.annotations.items()):
        allowed = value in ("", "runtime/default") or str(value).startswith("localhost/")
        if str(key).startswith(_APPARMOR_ANNOTATION) and not allowed:
            findings.append(Finding(f"metadata.annotations.{key}", "must be runtime/default or localhost/<profile>"))
    return findings


def _selinux(pod: Pod) -> list[Finding]:
    findings = []
    places = [("spec", pod.context()), *((path, context_of(c)) for path, c in pod.containers())]
    for path, context in places:
        options = context.get("seLinuxOptions")
        if not isinstance(options, Mapping):
            continue
        where = f"{path}.securityContext.seLinuxOptions"
        if (options.get("type") or "") not in SELINUX_TYPES:
            findings.append(Finding(f"{where}.type", f"must be one of {', '.join(sorted(SELINUX_TYPES - {''}))}"))
        for field in ("user", "role"):
            if options.get(field):
                findings.append(Finding(f"{where}.{field}", "must not be set"))
    return findings


def _proc_mount(pod: Pod) -> list[Finding]:
    return [
        Finding(f"{path}.securityContext.procMount", "must be Default")
        for path, container in pod.containers()
        if context_of(container).get("procMount") not in (None, "Default")
    ]


def _seccomp(pod: Pod) -> list[Finding]:
    """Since v1.19 the fields only: the alpha annotations are no longer read."""
    places = [("spec", pod.context()), *((path, context_of(c)) for path, c in pod.containers())]
    findings = [
        Finding(f"{path}.securityContext.seccompProfile.type", "must be RuntimeDefault or Localhost")
        for path, context in places
        if context.get("seccompProfile") is not None
        and as_map(context["seccompProfile"]).get("type") not in SECCOMP_TYPES
    ]
    return findings


def _sysctls(pod: Pod) -> list[Finding]:
    return [
        Finding(f"spec.securityContext.sysctls[{index}].name", f"{sysctl.get('name')!r} is not a safe sysctl")
        for index, sysctl in enumerate(as_list(pod.context().get("sysctls")))
        if isinstance(sysctl, Mapping) and sysctl.get("name") not in SAFE_SYSCTLS
    ]


BASELINE = (
    Control("windowsHostProcess", "HostProcess", PodSecurity.BASELINE, _host_process),
    Control("hostNamespaces", "Host Namespaces", PodSecurity.BASELINE, _host_namespaces),
    Control("privileged", "Privileged Containers", PodSecurity.BASELINE, _privileged),
    Control("capabilities_baseline", "Capabilities", PodSecurity.BASELINE, _capabilities),
    Control("hostPathVolumes", "HostPath Volumes", PodSecurity.BASELINE, _host_path_volumes),
    Control("hostPorts", "Host Ports", PodSecurity.BASELINE, _host_ports),
    Control("hostProbesAndHostLifecycle", "Host Probes / Lifecycle Hooks", PodSecurity.BASELINE, _host_probes),
    Control("appArmorProfile", "AppArmor", PodSecurity.BASELINE, _app_armor),
    Control("seLinuxOptions", "SELinux", PodSecurity.BASELINE, _selinux),
    Control("procMount", "/proc Mount Type", PodSecurity.BASELINE, _proc_mount),
    Control("seccompProfile_baseline", "Seccomp", PodSecurity.BASELINE, _seccomp),
    Control("sysctls", "Sysctls", PodSecurity.BASELINE, _sysctls),
)
