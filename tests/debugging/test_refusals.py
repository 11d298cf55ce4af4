"""Websocket refusals: every consumer authorizes at connect time against the pod, not the URL.

Another tenant's namespace is refused with 4404 (as if the pod did not exist), not 4403, so a
websocket cannot be used to probe which pods other projects run.
"""

from __future__ import annotations

import pytest

from console.asgi import application
from tests.support.debugging import EXEC, LOGS, member, refused_with, ws_headers
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


@pytest.mark.parametrize("path", [EXEC, LOGS, "/ws/logs/member-x/proj-ads/?selector=pincompute.io/workload=web"])
async def test_anonymous_is_refused_with_4401(fake_member, project, path):
    status, code = await refused_with(path, ws_headers(None))

    assert code == 4401 and status == {"type": "status", "state": "error", "message": "Sign in first."}


@pytest.mark.parametrize(
    "path",
    [
        "/ws/exec/member-x/proj-ml/train-1/app/",
        "/ws/logs/member-x/proj-ml/train-1/app/",
        "/ws/logs/member-x/proj-ml/?selector=a=b",
        "/ws/logs/member-x/kube-system/?selector=a=b",
    ],
)
async def test_another_tenants_namespace_looks_like_a_missing_pod(fake_member, project, other_project, user, path):
    member(project, user, "owner")

    status, code = await refused_with(path, ws_headers(user))

    assert code == 4404 and "train-1" not in status["message"]


async def test_a_viewer_may_not_open_a_shell(fake_member, project, user):
    member(project, user, "viewer")

    status, code = await refused_with(EXEC, ws_headers(user))

    assert code == 4403 and "Viewers" in status["message"]


@pytest.mark.parametrize(
    "path",
    [
        "/ws/exec/member-x/proj-ads/nope/app/",
        "/ws/exec/member-x/proj-ads/web-1/sidecar/",
        "/ws/logs/member-x/proj-ads/web-1/sidecar/",
        "/ws/exec/member-gone/proj-ads/web-1/app/",
    ],
)
async def test_unknown_pod_container_or_cluster_is_4404(fake_member, project, user, path):
    member(project, user, "developer")

    _, code = await refused_with(path, ws_headers(user))

    assert code == 4404


async def test_unknown_pod_is_4404_even_for_a_viewer_opening_a_shell(fake_member, project, user):
    member(project, user, "viewer")

    _, code = await refused_with("/ws/exec/member-x/proj-ads/nope/app/", ws_headers(user))

    assert code == 4404


async def test_a_foreign_origin_is_rejected_at_the_handshake(fake_member, project, user):
    member(project, user, "owner")
    comm = WebsocketCommunicator(application, EXEC, headers=ws_headers(user, origin=b"https://evil.example"))

    connected, _ = await comm.connect()

    assert not connected


async def test_a_viewer_may_follow_logs_of_a_selector_with_no_running_pods(fake_member, project, user):
    member(project, user, "viewer")
    comm = WebsocketCommunicator(
        application, "/ws/logs/member-x/proj-ads/?selector=pincompute.io/workload=none", headers=ws_headers(user)
    )

    connected, _ = await comm.connect()
    status = await comm.receive_json_from(timeout=5)
    await comm.disconnect()

    assert connected and status["state"] == "connected" and "No running pods" in status["message"]
