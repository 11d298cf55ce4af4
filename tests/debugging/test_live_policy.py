"""Policy on open sockets against the real local control plane (kube-apiserver + kwok exec and logs): revocation
mid-session (membership, role, archive, sign-out), idle timeout, the per-user cap, log options, and the session
rows the sessions page reads."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import pytest
import websocket
from channels.db import database_sync_to_async
from django.test import Client
from kubernetes import client as k8s
from kubernetes.stream import stream as k8s_stream

from base.models import AuditEvent
from clusters import runtime
from console.asgi import application
from debugging.models import DebugSession
from devtools.localcp.nodes import api_client
from projects.lifecycle import archive_project
from projects.members import MemberInput, remove_member, set_member
from tests.support.debugging import (
    closed_with,
    collect_lines,
    http_origin,
    member,
    open_shell,
    read_until,
    ws_headers,
)
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


def exists_in_pod(kubeconfig: str, namespace: str, pod: str, name: str) -> bool:
    """Direct exec (not through the portal): does the kwok exec work dir hold ``name``?"""
    core = k8s.CoreV1Api(api_client(kubeconfig, "member-a"))
    out = k8s_stream(
        core.connect_get_namespaced_pod_exec,
        pod,
        namespace,
        container="app",
        command=["/bin/sh", "-c", f"test -e {name} && echo present || echo absent"],
        stdout=True,
        stderr=True,
        stdin=False,
        tty=False,
    )
    return "present" in out


async def test_removing_a_member_closes_their_shell_and_the_next_keystroke_is_not_run(
    live_pods, local_control_plane, project, user, admin_user
):
    await database_sync_to_async(member)(project, user, "developer")
    pod = live_pods["names"][0]
    comm = await open_shell(f"/ws/exec/member-a/{project.namespace}/{pod}/app/", ws_headers(user))
    marker = f"marker-{uuid.uuid4().hex[:8]}"
    await comm.send_json_to({"type": "stdin", "data": "echo before-$((2+3))\r"})
    await read_until(comm, "before-5")
    started = time.monotonic()

    await database_sync_to_async(remove_member)(project, "user", user.username, actor=admin_user)
    await comm.send_json_to({"type": "stdin", "data": f"touch {marker}\r"})
    messages, code = await closed_with(comm)
    took = time.monotonic() - started

    assert code == 4403 and took < 5
    assert any(m.get("state") == "error" and "no longer a member" in m["message"] for m in messages)
    assert not any(marker in m.get("data", "") for m in messages)  # never echoed: never reached the pod
    await asyncio.sleep(1)
    kubeconfig = str(local_control_plane.kubeconfig_path)
    assert not await asyncio.to_thread(exists_in_pod, kubeconfig, project.namespace, pod, marker)
    row = await database_sync_to_async(lambda: DebugSession.objects.get(kind="shell"))()
    assert row.ended_at is not None and row.close_code == 4403 and row.end_reason.startswith("revoked")
    closed = await database_sync_to_async(lambda: AuditEvent.objects.get(action="shell.close"))()
    assert closed.after["reason"].startswith("revoked") and closed.after["bytes_in"] > 0


async def test_a_downgrade_to_viewer_closes_the_shell_and_keeps_the_log_stream(live_pods, project, user, admin_user):
    await database_sync_to_async(member)(project, user, "developer")
    pod = live_pods["names"][0]
    shell = await open_shell(f"/ws/exec/member-a/{project.namespace}/{pod}/app/", ws_headers(user))
    logs = WebsocketCommunicator(
        application, f"/ws/logs/member-a/{project.namespace}/{pod}/app/", headers=ws_headers(user)
    )
    assert (await logs.connect(timeout=20))[0]
    await collect_lines(logs, 1)

    await database_sync_to_async(set_member)(project, MemberInput("user", user.username, "viewer"), actor=admin_user)
    messages, code = await closed_with(shell)
    later = await collect_lines(logs, 2, timeout=10)  # the log pump writes a line a second
    await logs.disconnect()

    assert code == 4403 and any("role no longer allows a shell" in m.get("message", "") for m in messages)
    assert len(later) == 2


async def test_archiving_the_project_closes_its_log_streams(live_pods, project, user, admin_user):
    await database_sync_to_async(member)(project, user, "viewer")
    logs = WebsocketCommunicator(
        application, f"/ws/logs/member-a/{project.namespace}/{live_pods['names'][0]}/app/", headers=ws_headers(user)
    )
    assert (await logs.connect(timeout=20))[0]
    await collect_lines(logs, 1)

    for cache in (runtime.host_cache(), *runtime.member_caches().values()):  # archiving asks them for workloads
        assert await asyncio.to_thread(cache.wait_synced, 30)
    await database_sync_to_async(archive_project)(project, actor=admin_user)
    messages, code = await closed_with(logs)

    assert code == 4404 and any("archived" in m.get("message", "") for m in messages if m["type"] == "status")


async def test_signing_out_closes_the_sessions_sockets(live_pods, project, user):
    await database_sync_to_async(member)(project, user, "developer")
    browser = Client()
    await database_sync_to_async(browser.force_login)(user)
    cookie = [
        (b"host", b"127.0.0.1"),
        (b"origin", b"http://127.0.0.1"),
        (b"cookie", f"sessionid={browser.cookies['sessionid'].value}".encode()),
    ]
    shell = await open_shell(f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/", cookie)

    response = await database_sync_to_async(browser.post)("/logout/")
    messages, code = await closed_with(shell)

    assert response.status_code == 302
    assert code == 4401 and any(m.get("message") == "Signed out." for m in messages)


async def test_an_idle_shell_gets_a_notice_then_closes(live_pods, project, user, settings):
    settings.DEBUG_SHELL_IDLE_SECONDS, settings.DEBUG_SHELL_WARN_SECONDS = 3, 2
    await database_sync_to_async(member)(project, user, "developer")
    shell = await open_shell(f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/", ws_headers(user))
    started = time.monotonic()

    messages, code = await closed_with(shell, timeout=15)

    notices = [m for m in messages if m["type"] == "notice"]
    assert code == 4408 and 2.5 < time.monotonic() - started < 8
    assert notices and "closes in" in notices[0]["message"] and "idle" in notices[0]["message"]
    assert messages.index(notices[0]) < len(messages) - 1 and messages[-1]["state"] == "closed"


async def test_the_per_user_cap_refuses_one_socket_more_with_4429(live_pods, project, user, settings):
    settings.DEBUG_SOCKETS_PER_USER = 2
    await database_sync_to_async(member)(project, user, "viewer")
    path = f"/ws/logs/member-a/{project.namespace}/{live_pods['names'][0]}/app/"
    open_ones = []
    for _ in range(2):
        comm = WebsocketCommunicator(application, path, headers=ws_headers(user))
        assert (await comm.connect(timeout=20))[0]
        await collect_lines(comm, 1)
        open_ones.append(comm)

    third = WebsocketCommunicator(application, path, headers=ws_headers(user))
    await third.connect(timeout=20)
    messages, code = await closed_with(third)
    await open_ones[0].disconnect()
    fourth = WebsocketCommunicator(application, path, headers=ws_headers(user))
    await fourth.connect(timeout=20)
    admitted = await collect_lines(fourth, 1)
    for comm in (open_ones[1], fourth):
        await comm.disconnect()

    assert code == 4429 and "DEBUG_SOCKETS_PER_USER=2" in messages[0]["message"]
    assert admitted  # a slot freed by a close is usable at once
    refused = await database_sync_to_async(lambda: AuditEvent.objects.get(action="debug.refused"))()
    assert refused.after["code"] == 4429 and refused.actor_id == user.pk


@pytest.mark.parametrize(
    ("frame", "says"),
    [
        ({"bytes_data": b"\x00\xff"}, "Binary frames"),
        ({"text_data": "not json"}, "not JSON"),
        ({"text_data": "{{{"}, "not JSON"),
        ({"text_data": '{"type": "resize", "cols": Infinity, "rows": 5}'}, "not JSON"),  # Python's parser takes it
        ({"text_data": "[" * 100_000 + "]" * 100_000}, "not JSON"),  # deeper than the parser follows
    ],
)
async def test_a_frame_that_is_not_json_text_ends_the_shell_and_frees_its_slot(
    live_pods, project, user, settings, frame, says
):
    """It crashed the consumer before: no close frame, the exec stream and the session row kept alive (and the
    user's cap used) until the idle limit, no shell.close audited."""
    settings.DEBUG_SOCKETS_PER_USER = 1
    await database_sync_to_async(member)(project, user, "developer")
    path = f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/"
    shell = await open_shell(path, ws_headers(user))

    await shell.send_to(**frame)
    messages, code = await closed_with(shell, timeout=15)

    assert code == 4400 and says in messages[-1]["message"]
    row = await database_sync_to_async(lambda: DebugSession.objects.get())()
    closed = await database_sync_to_async(lambda: AuditEvent.objects.get(action="shell.close"))()
    assert row.ended_at is not None and row.close_code == 4400 and closed.after["reason"].startswith("bad message")
    again = await open_shell(path, ws_headers(user))  # the one slot is free again
    await again.send_json_to({"type": "stdin", "data": "echo back-$((40+2))\r"})
    assert "back-42" in await read_until(again, "back-42")
    await again.disconnect()


async def test_a_lone_surrogate_typed_into_a_shell_is_replaced_and_the_shell_goes_on(live_pods, project, user):
    await database_sync_to_async(member)(project, user, "developer")
    shell = await open_shell(f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/", ws_headers(user))

    await shell.send_to(text_data='{"type": "stdin", "data": "\\ud800x\\u0015"}')  # then ^U: the line dropped
    await shell.send_json_to({"type": "stdin", "data": "echo still-$((40+2))\r"})

    assert "still-42" in await read_until(shell, "still-42")
    await shell.disconnect()


async def test_a_failure_inside_the_consumer_ends_its_session_and_closes_1011(live_pods, project, user, monkeypatch):
    """The safety net under every socket: whatever a consumer raises, the pod-side stream and the session end."""
    from debugging.shell.consumer import ExecConsumer

    async def broken(self: Any, content: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug")

    await database_sync_to_async(member)(project, user, "developer")
    shell = await open_shell(f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/", ws_headers(user))
    monkeypatch.setattr(ExecConsumer, "receive_json", broken)

    await shell.send_json_to({"type": "stdin", "data": "x"})
    _, code = await closed_with(shell, timeout=15)

    row = await database_sync_to_async(lambda: DebugSession.objects.get())()
    assert code == 1011 and row.ended_at is not None and row.end_reason == "portal error"


async def test_log_options_tail_timestamps_and_no_follow(live_pods, project, user):
    await database_sync_to_async(member)(project, user, "viewer")
    path = f"/ws/logs/member-a/{project.namespace}/{live_pods['names'][0]}/app/?tail=3&timestamps=1&follow=0"
    for _ in range(10):  # a pod that just started may have written fewer than 3 lines (one a second)
        comm = WebsocketCommunicator(application, path, headers=ws_headers(user))
        assert (await comm.connect(timeout=20))[0]
        messages, code = await closed_with(comm, timeout=20)
        lines = [line for m in messages if m["type"] == "lines" for line in m["lines"]]
        if len(lines) >= 3:
            break
        await asyncio.sleep(1)

    assert code == 1000 and len(lines) == 3
    assert all(line["text"].startswith(line["ts"] + " ") for line in lines)


async def test_a_shell_that_ends_by_itself_is_audited_before_the_client_closes_its_connection(
    live_pods, project, user, uvicorn_default_ws
):
    """uvicorn's default (legacy websockets) close waits for the client's TCP close: the row must not."""
    await database_sync_to_async(member)(project, user, "developer")
    cookie = dict(await database_sync_to_async(ws_headers)(user))[b"cookie"].decode()
    url = f"{uvicorn_default_ws}/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/"

    def run_and_exit() -> int:
        ws = websocket.create_connection(url, header=[f"Cookie: {cookie}"], origin=http_origin(url), timeout=20)
        ws.send(json.dumps({"type": "stdin", "data": "exit 3\r"}))
        while True:
            opcode, frame = ws.recv_data_frame(True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                holder.append(ws)  # keep the TCP connection open
                return int.from_bytes(frame.data[:2], "big")

    holder: list[Any] = []
    code = await asyncio.to_thread(run_and_exit)
    for _ in range(40):
        if await database_sync_to_async(lambda: AuditEvent.objects.filter(action="shell.close").exists())():
            break
        await asyncio.sleep(0.05)
    ended = await database_sync_to_async(lambda: AuditEvent.objects.filter(action="shell.close").first())()
    holder[0].close()

    assert code == 1000 and ended is not None and ended.after["reason"] == "exit 3"
