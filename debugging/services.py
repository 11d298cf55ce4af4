"""The debugging app's writes: session rows, shell recordings and the audit rows of shells and log streams.

The consumers (``shell.consumer``, ``logs.consumer``, ``logs.workload_consumer`` through ``socketbase``) call these
and nothing else writes. A session row is started under the per-user cap, touched by the socket's periodic
re-check and ended once. The cap counts a user's open rows seen within ``STALE_AFTER`` re-check periods, across
every worker (the database is shared); rows of a worker that died are closed as ``lost`` when they go stale.
A refused socket's audit row is rate-limited per user and reason: ``refusals.record_refusal``.
Debug containers are started by ``debug_containers.start_debug_container`` (re-exported here; audited ``debug.start``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from base import audit
from debugging import notices
from debugging.authz import PodRef
from debugging.debug_containers import start_debug_container as start_debug_container
from debugging.models import DebugSession, SessionRecording
from debugging.policy import TooManySessions, limits

STALE_AFTER = 3  # re-check periods without a touch


@dataclass(frozen=True)
class SessionTarget:
    """What a socket reads: one container, a selector's pods (pod ``?<selector>``, container ``*``) or a workload
    on every member (cluster ``*``, pod ``workload:<name>``)."""

    project: str
    cluster: str
    namespace: str
    pod: str
    container: str


class Transcript(Protocol):
    """What a recording is saved from (``shell.recording.Recorder``)."""

    dirty: bool
    truncated: bool

    def cast(self) -> str: ...


def _stale_before() -> Any:
    return timezone.now() - timedelta(seconds=STALE_AFTER * max(1, limits().recheck_seconds))


def start_session(
    target: SessionTarget,
    *,
    actor: Any,
    kind: str,
    auth_method: str,
    detail: str = "",
    recorded: bool = False,
) -> DebugSession:
    """A new open row; ``TooManySessions`` (close 4429) when the user already holds the cap."""
    cap = limits().sockets_per_user
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=actor.pk).first()  # one admission at a time per user
        mine = DebugSession.objects.filter(user=actor, ended_at__isnull=True)
        mine.filter(last_seen__lt=_stale_before()).update(ended_at=timezone.now(), end_reason="lost (worker gone)")
        held = mine.count()
        if held >= cap:
            raise TooManySessions(
                f"You have {held} open shells and log streams, the most allowed (DEBUG_SOCKETS_PER_USER={cap}); "
                "close one first."
            )
        return DebugSession.objects.create(
            kind=kind,
            user=actor,
            username=actor.get_username(),
            project_name=target.project,
            cluster=target.cluster,
            namespace=target.namespace,
            pod=target.pod,
            container=target.container,
            auth_method=auth_method,
            detail=detail[:300],
            recorded=recorded,
        )


def touch_session(session_id: int, *, bytes_in: int, bytes_out: int) -> None:
    DebugSession.objects.filter(pk=session_id, ended_at__isnull=True).update(
        last_seen=timezone.now(), bytes_in=bytes_in, bytes_out=bytes_out
    )


def end_session(session_id: int, *, bytes_in: int, bytes_out: int, reason: str, code: int | None) -> None:
    DebugSession.objects.filter(pk=session_id, ended_at__isnull=True).update(
        ended_at=timezone.now(), bytes_in=bytes_in, bytes_out=bytes_out, end_reason=reason[:200], close_code=code
    )


def save_recording(session_id: int, transcript: Transcript) -> None:
    """Write (or rewrite) the session's transcript; a no-op when nothing changed since the last save."""
    if not transcript.dirty:
        return
    transcript.dirty = False
    text = transcript.cast()
    SessionRecording.objects.update_or_create(
        session_id=session_id,
        defaults={"cast": text, "size": len(text.encode()), "truncated": transcript.truncated},
    )
    DebugSession.objects.filter(pk=session_id, recorded=False).update(recorded=True)


def record_shell_opened(
    ref: PodRef, container: str, *, actor: Any, session: int | None, shell: str, recorded: bool
) -> None:
    _shell_audit(ref, container, "shell.open", actor, {"session": session, "shell": shell, "recorded": recorded})
    notices.shell_opened(ref.project, f"{ref.cluster.name}/{ref.namespace}/{ref.name}/{container}", actor=actor,
                         session=session)  # fmt: skip


def record_shell_closed(
    ref: PodRef,
    container: str,
    *,
    actor: Any,
    session: int | None,
    bytes_in: int,
    bytes_out: int,
    duration_s: float,
    reason: str,
) -> None:
    after = {
        "session": session,
        "bytes_in": bytes_in,
        "bytes_out": bytes_out,
        "duration_s": duration_s,
        "reason": reason,
    }
    _shell_audit(ref, container, "shell.close", actor, after)


def _shell_audit(ref: PodRef, container: str, action: str, actor: Any, after: dict[str, Any]) -> None:
    audit.record(
        action,
        actor=actor,
        target_kind="pod",
        target_name=f"{ref.namespace}/{ref.name}/{container}",
        project=ref.project.name,
        cluster=ref.cluster.name,
        after=after,
        summary=f"{action} {ref.name}/{container}",
    )


def record_logs_opened(
    target: str, *, actor: Any, project: str, cluster: str, streams: int, session: int | None, file: str | None
) -> None:
    """The audit row of a log stream opened (``logs.open``): ``target`` names the container, selector or workload."""
    audit.record(
        "logs.open",
        actor=actor,
        target_kind="pod",
        target_name=target,
        project=project,
        cluster=cluster,
        after={"streams": streams, "session": session, "file": file},
        summary=f"logs of {target}",
    )
