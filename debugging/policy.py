"""What an open socket may keep doing: its limits, the platform's sidecars, names, and the re-check.

Authorization at connect (``debugging.authz``) is not enough for a socket that lives for hours: ``recheck``
runs the same rules again against the database (the user still active, the session or API token still
valid, the project still visible and active, the role still allowing a shell, a sidecar still an admin's)
whenever ``accounts.live_access`` says the user's access changed, every ``DEBUG_RECHECK_SECONDS``, and when a
time-limited grant the socket rests on ends (``Grant.until``: before the next message is forwarded, even when the
expiry task has not run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model

from base.errors import Forbidden, NotFound, ServiceError, Unauthenticated
from pincompute.errors import PermanentError
from pincompute.labels import INJECTED_ANNOTATION, PROFILE_ANNOTATION
from pincompute.runtime.profile import load_profile
from projects.access_requests.rules import ALL_ROLES, access_until, may_exec_sidecars
from projects.models import Project

# A Kubernetes object name (DNS-1123 subdomain): no "/", no "..", no empty part, nothing to traverse with.
_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
MAX_NAME = 253


class TooManySessions(ServiceError):
    status, code, close_code = 429, "too_many_sessions", 4429


@dataclass(frozen=True)
class Limits:
    sockets_per_user: int
    idle_seconds: int
    max_seconds: int
    warn_seconds: int
    recheck_seconds: int
    refusal_audit_seconds: int


def limits() -> Limits:
    """Read at each use, so a changed setting (or a test's override) applies to the next socket."""
    return Limits(
        sockets_per_user=settings.DEBUG_SOCKETS_PER_USER,
        idle_seconds=settings.DEBUG_SHELL_IDLE_SECONDS,
        max_seconds=settings.DEBUG_SHELL_MAX_SECONDS,
        warn_seconds=settings.DEBUG_SHELL_WARN_SECONDS,
        recheck_seconds=settings.DEBUG_RECHECK_SECONDS,
        refusal_audit_seconds=settings.DEBUG_REFUSAL_AUDIT_SECONDS,
    )


def valid_name(value: str) -> bool:
    return 0 < len(value) <= MAX_NAME and _NAME.fullmatch(value) is not None


def platform_containers(pod: dict[str, Any]) -> frozenset[str]:
    """The containers the platform injected into ``pod`` (its runtime profile's sidecars and init containers),
    named by the pod's ``pincompute.io/injected`` annotation and by the profile's reserved names."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    try:
        reserved = load_profile(annotations.get(PROFILE_ANNOTATION) or "v1").reserved_container_names()
    except PermanentError:
        reserved = load_profile("v1").reserved_container_names()
    named = {n.strip() for n in str(annotations.get(INJECTED_ANNOTATION, "")).split(",")} & set(reserved)
    spec = pod.get("spec") or {}
    present = {c.get("name") for key in ("containers", "initContainers") for c in spec.get(key) or []}
    return frozenset((named | set(reserved)) & present)


@dataclass(frozen=True)
class Grant:
    """What a socket was allowed at connect, to be checked again while it is open."""

    user_id: int
    project_id: int
    project_name: str
    need_exec: bool = False
    sidecar: bool = False
    session_key: str = ""
    authorization: bytes | None = None
    until: float | None = None  # when a time-limited grant this rests on ends (epoch seconds): re-check then


def access_deadline(grant: Grant) -> float | None:
    """``Grant.until``, read again: the earliest end of the time-limited grants the socket's access rests on."""
    from debugging.authz import EXEC_ROLES

    user = get_user_model().objects.filter(pk=grant.user_id).first()
    if user is None:
        return None
    roles = EXEC_ROLES if grant.need_exec else ALL_ROLES
    end = access_until(user, grant.project_id, roles=roles, sidecar=grant.sidecar)
    return None if end is None else end.timestamp()


def recheck(grant: Grant) -> ServiceError | None:
    """None while the socket may stay open; else the refusal to close it with."""
    from debugging.authz import EXEC_ROLES
    from debugging.tokens import user_for_authorization

    user = get_user_model().objects.filter(pk=grant.user_id, is_active=True).first()
    if user is None:
        return Unauthenticated("Your account is no longer active.")
    if grant.authorization is not None:
        if user_for_authorization(grant.authorization).pk != user.pk:
            return Unauthenticated("The API token was revoked or has expired.")
    elif grant.session_key and not _session_of(grant.session_key, user.pk):
        return Unauthenticated("Signed out.")
    projects = Project.objects.visible_to(user).filter(pk=grant.project_id)
    if not projects.exists():
        return Forbidden(f"You are no longer a member of {grant.project_name}.")
    if not projects.active().exists():
        return NotFound(f"{grant.project_name} was archived.")
    if grant.need_exec and not Project.objects.for_role(user, EXEC_ROLES).filter(pk=grant.project_id).exists():
        return Forbidden("Your role no longer allows a shell (viewers can read logs).")
    if grant.sidecar and not may_exec_sidecars(user, grant.project_id):
        return Forbidden("Platform sidecars are for platform admins (or a live sidecar-exec grant) only.")
    return None


def _session_of(session_key: str, user_id: int) -> bool:
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    return bool(store.load().get(SESSION_KEY) == str(user_id))
