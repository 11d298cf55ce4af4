"""The pod's and the containers' ``securityContext``, typed as the apiserver types them.

A string where a boolean goes (``privileged: "true"``) or a number as a string is refused here, naming the field,
instead of by the member's operator long after the workload was admitted. The cross-field rules are the apiserver's
own validation of these fields (a profile of type Localhost names its file, no other type does; privileged excludes
``allowPrivilegeEscalation: false``), so what validation accepts a member accepts too. What a project's level allows
is decided in ``pincompute.podsecurity``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pincompute.errors import FieldError
from pincompute.specs.schema import Arr, Bool, Field, Int, Str, join, obj

ID_MAX = 2147483647  # the apiserver's bound for user and group ids
_SYSCTL = re.compile(r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$")


def _sysctl_name(value: str) -> str | None:
    if len(value) > 253 or not _SYSCTL.fullmatch(value):
        return f"{value!r} is not a sysctl name (e.g. net.ipv4.ip_local_port_range)"
    return None


def _profile(types: tuple[str, ...], what: str, doc: str) -> Field:
    return Field(
        what,
        obj(
            Field(
                "type",
                Str(enum=types, description="Which profile: the runtime's, a node file, or none."),
                required=True,
            ),
            Field("localhostProfile", Str(description="Only with type Localhost, which requires it.")),
            description=doc,
        ),
    )


def _id(description: str = "") -> Int:
    return Int(minimum=0, maximum=ID_MAX, description=description)


_SELINUX = Field(
    "seLinuxOptions",
    obj(
        *(Field(name, Str(description=f"The SELinux {name} label.")) for name in ("user", "role", "type", "level")),
        description="The SELinux context to apply.",
    ),
)
_WINDOWS = Field(
    "windowsOptions",
    obj(
        Field("hostProcess", Bool(description="Run as a Windows host process.")),
        Field("runAsUserName", Str(description="The Windows user to run as.")),
        Field("gmsaCredentialSpecName", Str(description="The GMSA credential spec to use, by name.")),
        Field("gmsaCredentialSpec", Str(description="The GMSA credential spec's content.")),
        description="Windows-specific settings (ignored on Linux nodes).",
    ),
)
_PROFILES = ("RuntimeDefault", "Localhost", "Unconfined")
_SECCOMP = _profile(_PROFILES, "seccompProfile", "The seccomp profile (system calls allowed).")
_APPARMOR = _profile(_PROFILES, "appArmorProfile", "The AppArmor profile.")
_RUN_AS_USER = "The user id the processes run as; default the image's."
_RUN_AS_GROUP = "The primary group id the processes run as."
_NON_ROOT = "Refuse to start a container whose user is root."

CONTAINER_SECURITY_CONTEXT = obj(
    Field("privileged", Bool(description="Run with every capability and device of the node.")),
    Field("allowPrivilegeEscalation", Bool(description="Whether a process may gain more privileges (setuid).")),
    Field(
        "capabilities",
        obj(
            Field("add", Arr(items=Str(), description="Linux capabilities to add, e.g. NET_BIND_SERVICE.")),
            Field("drop", Arr(items=Str(), description="Linux capabilities to drop, e.g. ALL.")),
            description="Linux capabilities beyond the runtime's default set.",
        ),
    ),
    Field("readOnlyRootFilesystem", Bool(description="Mount the container's root filesystem read-only.")),
    Field("runAsUser", _id(_RUN_AS_USER)),
    Field("runAsGroup", _id(_RUN_AS_GROUP)),
    Field("runAsNonRoot", Bool(description=_NON_ROOT)),
    Field(
        "procMount", Str(enum=("Default", "Unmasked"), description="How /proc is mounted; Unmasked needs privileges.")
    ),
    _SECCOMP,
    _APPARMOR,
    _SELINUX,
    _WINDOWS,
    description="A container's security context; what the project's pod security level allows is checked too.",
)
POD_SECURITY_CONTEXT = obj(
    Field("runAsUser", _id(_RUN_AS_USER)),
    Field("runAsGroup", _id(_RUN_AS_GROUP)),
    Field("runAsNonRoot", Bool(description=_NON_ROOT)),
    Field("fsGroup", _id("The group that owns the pod's volumes, added to every container's groups.")),
    Field(
        "fsGroupChangePolicy",
        Str(enum=("OnRootMismatch", "Always"), description="When volume ownership is changed to fsGroup."),
    ),
    Field("supplementalGroups", Arr(items=_id(), description="More group ids for every container's first process.")),
    Field(
        "supplementalGroupsPolicy",
        Str(enum=("Merge", "Strict"), description="Whether the image's /etc/group memberships are added."),
    ),
    Field(
        "seLinuxChangePolicy",
        Str(enum=("MountOption", "Recursive"), description="How the SELinux label is applied to volumes."),
    ),
    Field(
        "sysctls",
        Arr(
            items=obj(
                Field(
                    "name", Str(checks=(_sysctl_name,), description="e.g. net.ipv4.ip_local_port_range."), required=True
                ),
                Field("value", Str(description="The value to set."), required=True),
                description="One namespaced kernel parameter.",
            ),
            description="Namespaced kernel parameters for the pod (unsafe ones depend on the level).",
        ),
    ),
    _SECCOMP,
    _APPARMOR,
    _SELINUX,
    _WINDOWS,
    description="The pod's security context, inherited by every container (the platform's too).",
)


def check_security_context(context: object, path: str, errors: list[FieldError], *, pod: bool = False) -> None:
    """The apiserver's cross-field rules on a (type-checked) security context."""
    if not isinstance(context, Mapping):
        return
    for what in ("seccompProfile", "appArmorProfile"):
        _check_profile(context.get(what), join(path, what), errors)
    if pod:
        names = [s.get("name") for s in context.get("sysctls") or [] if isinstance(s, Mapping)]
        for index, name in enumerate(names):
            if isinstance(name, str) and name in names[:index]:
                errors.append(FieldError(join(join(join(path, "sysctls"), index), "name"), f"{name!r} is set twice"))
        return
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged") is True:
            message = "cannot be false for a privileged container"
            errors.append(FieldError(join(path, "allowPrivilegeEscalation"), message))
        added = (context.get("capabilities") or {}).get("add") if isinstance(context.get("capabilities"), dict) else []
        if isinstance(added, list) and "CAP_SYS_ADMIN" in added:
            message = "cannot be false when capabilities.add has CAP_SYS_ADMIN"
            errors.append(FieldError(join(path, "allowPrivilegeEscalation"), message))


def _check_profile(profile: Any, path: str, errors: list[FieldError]) -> None:
    if not isinstance(profile, Mapping) or not isinstance(profile.get("type"), str):
        return
    named = profile.get("localhostProfile")
    if profile["type"] == "Localhost" and not named:
        errors.append(FieldError(join(path, "localhostProfile"), "is required with type Localhost"))
    elif (
        profile["type"] == "Localhost"
        and isinstance(named, str)
        and (named.startswith("/") or ".." in named.split("/"))
    ):
        message = "must be a path under the node's profile directory (relative, without '..')"
        errors.append(FieldError(join(path, "localhostProfile"), message))
    elif profile["type"] != "Localhost" and named is not None:
        errors.append(FieldError(join(path, "localhostProfile"), "may only be set with type Localhost"))
