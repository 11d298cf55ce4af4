"""How live log streams end, against the real local control plane (probe round 2, items 9-11): a file log with
``follow=0`` sends its last lines and closes 1000; ``previous=1`` on a container that never restarted is 4404 with
a clean message (not kwok's ``seek .: invalid argument``); a member apiserver that cannot be reached closes the
console and file streams 4502 naming it; a workload that does not exist is 4404 once the host cache can tell."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest
from channels.db import database_sync_to_async
from kubernetes import client as k8s

from clusters import runtime
from console.asgi import application
from debugging.models import DebugSession
from tests.support.debugging import APP_LOG, closed_with, member, ws_headers
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


async def stream(path: str, user: Any, timeout: float = 30) -> tuple[list[dict[str, Any]], int]:
    comm = WebsocketCommunicator(application, path, headers=await database_sync_to_async(ws_headers)(user))
    assert (await comm.connect(timeout=20))[0]
    return await closed_with(comm, timeout=timeout)


def lines_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for m in messages if m["type"] == "lines" for line in m["lines"]]


async def test_a_file_log_without_follow_sends_its_last_lines_and_closes_1000(live_pods, project, user):
    await database_sync_to_async(member)(project, user, "viewer")
    pod = live_pods["names"][0]

    seen, code = await stream(f"/ws/logs/member-a/{project.namespace}/{pod}/app/?file={APP_LOG}&tail=2&follow=0", user)

    assert code == 1000 and len(lines_of(seen)) == 2, seen
    assert seen[-1] == {"type": "status", "state": "closed", "message": f"Log of {pod}/app ended."}


async def test_previous_of_a_container_that_never_restarted_is_4404(live_pods, project, user):
    await database_sync_to_async(member)(project, user, "viewer")
    pod = live_pods["names"][0]

    seen, code = await stream(f"/ws/logs/member-a/{project.namespace}/{pod}/app/?previous=1&tail=2", user)

    assert code == 4404 and seen[-1]["message"].startswith(f"No previous container: app in {pod} has not restarted")
    assert "seek" not in seen[-1]["message"]


@pytest.fixture
def member_a_unreachable(live_pods: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """member-a's pods stay in the portal's cache, but its apiserver address for logs is a closed port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    api = k8s.ApiClient(k8s.Configuration(host=f"https://127.0.0.1:{port}"))
    monkeypatch.setattr("debugging.logs.consumer.api_for", lambda cluster: api)


@pytest.mark.parametrize("query", ["?tail=2", f"?tail=2&file={APP_LOG}"])
@pytest.mark.usefixtures("member_a_unreachable")
async def test_an_unreachable_member_apiserver_closes_4502(live_pods, project, user, query):
    await database_sync_to_async(member)(project, user, "viewer")

    seen, code = await stream(f"/ws/logs/member-a/{project.namespace}/{live_pods['names'][0]}/app/{query}", user)

    assert code == 4502 and seen[-1]["message"].startswith("Could not reach member-a's apiserver: "), seen
    row = await database_sync_to_async(DebugSession.objects.get)()
    assert row.close_code == 4502


async def test_a_workload_that_does_not_exist_is_4404_one_with_pods_opens(live_pods, project, user):
    await database_sync_to_async(member)(project, user, "viewer")
    host = await database_sync_to_async(runtime.host_cache)()
    assert host is not None and await asyncio.to_thread(host.wait_synced, 30)

    seen, code = await stream(f"/ws/workload-logs/{project.namespace}/no-such-workload/", user)
    comm = WebsocketCommunicator(
        application,
        f"/ws/workload-logs/{project.namespace}/{live_pods['workload']}/",
        headers=await database_sync_to_async(ws_headers)(user),
    )
    assert (await comm.connect(timeout=20))[0]
    opened = await comm.receive_json_from(timeout=20)
    await comm.disconnect()

    assert code == 4404 and seen[-1]["message"] == f"No such workload: no-such-workload in {project.namespace}."
    assert opened["state"] == "connected"  # pods of it run (it has no host object here): not refused
