"""A time-limited role ends and the user's open shell closes before their next keystroke reaches the pod: through
the expiry task (the revocation path: the shell closes with no keystroke at all), and by the clock alone when no
task ran (the socket re-checks when the grant it rests on ends)."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from base.models import AuditEvent
from debugging.models import DebugSession
from projects.access_requests.models import AccessGrant
from projects.access_requests.services import grant_access
from projects.access_requests.tasks import expire_access_grants
from tests.support.debugging import closed_with, open_shell, read_until, ws_headers

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


def give_developer(project, user, admin_user, seconds: int) -> AccessGrant:
    return grant_access(
        project, username=user.username, access="developer", duration_seconds=seconds, reason="INC-7", actor=admin_user
    )


async def shell_with_a_marker(project, pod: str, user) -> tuple[object, str]:
    comm = await open_shell(f"/ws/exec/member-a/{project.namespace}/{pod}/app/", ws_headers(user))
    await comm.send_json_to({"type": "stdin", "data": "echo before-$((2+3))\r"})
    await read_until(comm, "before-5")
    return comm, f"marker-{uuid.uuid4().hex[:8]}"


async def test_the_expiry_task_closes_the_shell_of_an_expired_grant_before_any_keystroke(
    live_pods, project, user, admin_user
):
    grant = await database_sync_to_async(give_developer)(project, user, admin_user, 3600)
    comm, marker = await shell_with_a_marker(project, live_pods["names"][0], user)

    await database_sync_to_async(
        lambda: AccessGrant.objects.filter(pk=grant.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    )()  # the hour has passed
    await database_sync_to_async(expire_access_grants)()
    messages, code = await closed_with(comm)  # closed without a keystroke: the revocation path told it

    assert code == 4403
    assert any(m.get("state") == "error" and "no longer a member" in m["message"] for m in messages)
    row = await database_sync_to_async(lambda: DebugSession.objects.get(kind="shell"))()
    assert row.close_code == 4403 and row.end_reason.startswith("revoked")
    assert await database_sync_to_async(AuditEvent.objects.filter(action="project.access.expire").count)() == 1
    assert not any(marker in m.get("data", "") for m in messages)


async def test_without_the_expiry_task_the_clock_closes_the_shell_before_the_next_keystroke(
    live_pods, project, user, admin_user, settings
):
    settings.ACCESS_GRANT_MIN_SECONDS = 1
    settings.DEBUG_RECHECK_SECONDS = 3600  # the periodic safety net is out of the picture
    grant = await database_sync_to_async(give_developer)(project, user, admin_user, 30)
    comm, marker = await shell_with_a_marker(project, live_pods["names"][0], user)
    while timezone.now() <= grant.ends_at:  # the grant ends by the clock; no task runs
        await asyncio.sleep(0.2)
    started = time.monotonic()

    await comm.send_json_to({"type": "stdin", "data": f"echo {marker}\r"})
    messages, code = await closed_with(comm, timeout=30)

    assert code == 4403 and time.monotonic() - started < 30
    assert not any(marker in m.get("data", "") for m in messages)  # never echoed: never reached the pod
    still_open = await database_sync_to_async(AccessGrant.objects.filter(closed_at__isnull=True).count)()
    assert still_open == 1  # the task never ran: the clock alone ended it
