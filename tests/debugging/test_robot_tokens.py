"""A robot account's token on the websocket handshake: a shell needs its exec scope, a log stream its logs (or
exec) scope, another project's pod is 4404, and a revocation closes an open shell at once (the last one against
the real local control plane)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from robots.services import create_robot, revoke_robot
from tests.support.debugging import EXEC, HOST, LOGS, ORIGIN, closed_with, member, open_shell, read_until, refused_with

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


def bearer(raw: str) -> list[tuple[bytes, bytes]]:
    return [(b"host", HOST), (b"origin", ORIGIN), (b"authorization", f"Bearer {raw}".encode())]


@database_sync_to_async
def robot_of(project: Any, owner: Any, *scopes: str) -> str:
    member(project, owner, "owner")
    return create_robot(project, name="ci", scopes=list(scopes), days=1, actor=owner)[2]


async def test_a_robot_without_exec_gets_no_shell(fake_member, project, user):
    raw = await robot_of(project, user, "read", "write", "logs")

    status, code = await refused_with(EXEC, bearer(raw))

    assert code == 4403 and "no exec scope" in status["message"]


async def test_a_robot_without_logs_or_exec_gets_no_log_stream(fake_member, project, user):
    raw = await robot_of(project, user, "read", "write")

    status, code = await refused_with(LOGS, bearer(raw))

    assert code == 4403 and "logs" in status["message"]


async def test_another_projects_pod_is_4404_for_a_robot_even_if_its_user_was_added_there(
    fake_member, project, other_project, user
):
    raw = await robot_of(project, user, "read", "exec", "logs")
    from robots.models import Robot

    robot_user = await database_sync_to_async(lambda: Robot.objects.get(name="ci").user)()
    await database_sync_to_async(member)(other_project, robot_user, "developer")  # an owner of ml adds it by name

    _, code = await refused_with("/ws/exec/member-x/proj-ml/train-1/app/", bearer(raw))

    assert code == 4404


@pytest.mark.integration
@pytest.mark.cluster
async def test_revoking_a_robot_closes_its_open_shell(live_pods, project, user, admin_user):
    raw = await robot_of(project, user, "read", "exec")
    pod = live_pods["names"][0]
    comm = await open_shell(f"/ws/exec/member-a/{project.namespace}/{pod}/app/", bearer(raw))
    await comm.send_json_to({"type": "stdin", "data": "echo before-$((2+3))\r"})
    await read_until(comm, "before-5")

    await database_sync_to_async(revoke_robot)(project, "ci", actor=admin_user)
    await comm.send_json_to({"type": "stdin", "data": "echo after\r"})
    messages, code = await closed_with(comm)

    assert code == 4401
    assert not any("after\r\n" in m.get("data", "") for m in messages)
