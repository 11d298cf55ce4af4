"""Terminal, recordings and logs against the real local control plane (kube-apiserver + kwok exec and logs, pods
confined with a filesystem of their own): the shell picker, a recorded session that replays, a file log that
receives lines appended after it opened, include/exclude on the server, and a workload's stream across both
member clusters that picks up a new pod."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from kubernetes import client as k8s
from kubernetes.stream import stream as k8s_stream

from base.models import AuditEvent
from console.asgi import application
from debugging.models import DebugSession, SessionRecording
from debugging.shell.recording import parse_cast
from devtools.localcp.nodes import api_client
from projects.lifecycle import set_shell_recording
from tests.support.debugging import (
    APP_LOG,
    WORKLOAD,
    closed_with,
    collect_lines,
    member,
    open_shell,
    read_until,
    run_pod,
    ws_headers,
)
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


def pod_exec(kubeconfig: str, namespace: str, pod: str, command: str, cluster: str = "member-a") -> str:
    """Direct exec (not through the portal), as ``kubectl exec`` would."""
    core = k8s.CoreV1Api(api_client(kubeconfig, cluster))
    return str(
        k8s_stream(
            core.connect_get_namespaced_pod_exec,
            pod,
            namespace,
            container="app",
            command=["/bin/sh", "-c", command],
            stdout=True,
            stderr=True,
            stdin=False,
            tty=False,
        )
    )


async def test_the_shell_picker_starts_the_shell_named_and_refuses_any_other(live_pods, project, user):
    await database_sync_to_async(member)(project, user, "developer")
    base = f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/"
    headers = await database_sync_to_async(ws_headers)(user)

    bash = await open_shell(base + "?shell=bash", headers)
    await bash.send_json_to({"type": "stdin", "data": 'echo "bash=[${BASH_VERSION:+yes}]"\r'})
    assert "bash=[yes]" in await read_until(bash, "bash=[yes]")
    await bash.disconnect()
    sh = await open_shell(base + "?shell=sh", headers)
    await sh.send_json_to({"type": "stdin", "data": 'echo "sh=[${BASH_VERSION:-none}]"\r'})
    assert "sh=[none]" in await read_until(sh, "sh=[none]")
    await sh.disconnect()

    other = WebsocketCommunicator(application, base + "?shell=/bin/rm%20-rf", headers=headers)
    assert (await other.connect(timeout=20))[0]
    seen, code = await closed_with(other)

    assert code == 4400 and "pick one of auto, sh, bash" in seen[-1]["message"]
    rows = await database_sync_to_async(lambda: list(DebugSession.objects.order_by("pk")))()
    assert [r.detail for r in rows] == ["shell=bash", "shell=sh"]  # the refused one opened nothing
    refused = await database_sync_to_async(lambda: AuditEvent.objects.get(action="debug.refused"))()
    assert refused.after["code"] == 4400


async def test_a_recorded_session_replays_for_owners_and_admins_only(live_pods, project, user, other_user, admin_user):
    await database_sync_to_async(member)(project, admin_user, "owner")
    await database_sync_to_async(member)(project, other_user, "owner")
    await database_sync_to_async(member)(project, user, "developer")
    await database_sync_to_async(set_shell_recording)(project, True, actor=other_user)
    comm = await open_shell(
        f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/",
        await database_sync_to_async(ws_headers)(user),
    )
    notice = await comm.receive_json_from(timeout=10)
    await comm.send_json_to({"type": "resize", "cols": 100, "rows": 30})
    await comm.send_json_to({"type": "stdin", "data": "echo recorded-$((40+2))\r"})
    await read_until(comm, "recorded-42")
    await comm.send_json_to({"type": "stdin", "data": "exit\r"})
    _, code = await closed_with(comm, timeout=20)

    session = await database_sync_to_async(lambda: DebugSession.objects.get(kind="shell"))()
    stored = await database_sync_to_async(lambda: SessionRecording.objects.get(session=session))()
    header, events = parse_cast(stored.cast)
    shown = "".join(e[2] for e in events if e[1] == "o")
    assert notice == {"type": "notice", "message": "This shell is recorded (ads's policy)."} and code == 1000
    assert session.recorded and header["version"] == 2 and header["width"] > 0
    assert "recorded-42" in shown and [e[0] for e in events] == sorted(e[0] for e in events)
    assert stored.size == len(stored.cast.encode()) and not stored.truncated

    def fetch(who: Any) -> tuple[int, bytes, bytes]:
        client = Client()
        client.force_login(who)
        page = client.get(f"/debug/recordings/{session.pk}/")
        cast = client.get(f"/debug/recordings/{session.pk}.cast")
        return page.status_code, cast.status_code, cast.content

    owner_page, owner_cast, body = await database_sync_to_async(fetch)(other_user)
    admin_page, admin_cast, _ = await database_sync_to_async(fetch)(admin_user)
    dev_page, dev_cast, dev_body = await database_sync_to_async(fetch)(user)  # who typed it, not an owner
    assert (owner_page, owner_cast, admin_page, admin_cast) == (200, 200, 200, 200)
    assert body.decode() == stored.cast and b"recorded-42" in body
    assert (dev_page, dev_cast) == (404, 404) and b"recorded-42" not in dev_body

    def sessions_page(who: Any) -> str:
        client = Client()
        client.force_login(who)
        return client.get(f"/debug/sessions/{project.name}/").content.decode()

    assert f'href="/debug/recordings/{session.pk}/"' in await database_sync_to_async(sessions_page)(other_user)
    assert "/debug/recordings/" not in await database_sync_to_async(sessions_page)(user)


async def test_a_file_log_receives_lines_appended_after_it_opened(live_pods, local_control_plane, project, user):
    await database_sync_to_async(member)(project, user, "viewer")  # a declared file: viewers may read it
    pod, marker = live_pods["names"][0], f"appended-{uuid.uuid4().hex[:8]}"
    comm = WebsocketCommunicator(
        application,
        f"/ws/logs/member-a/{project.namespace}/{pod}/app/?file={APP_LOG}&tail=2",
        headers=await database_sync_to_async(ws_headers)(user),
    )
    assert (await comm.connect(timeout=20))[0]
    first = await collect_lines(comm, 2)  # tail -F has opened the file

    kubeconfig = str(local_control_plane.kubeconfig_path)
    await database_sync_to_async(pod_exec)(kubeconfig, project.namespace, pod, f"echo {marker} >> {APP_LOG}")
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 20
    while not any(line["text"] == marker for line in seen):
        assert time.monotonic() < deadline, f"{marker} never arrived: {seen[-5:]}"
        seen += await collect_lines(comm, 1, timeout=max(0.1, deadline - time.monotonic()))
    await comm.disconnect()

    assert all(line["pod"] == pod and line["container"] == "app" for line in first + seen)
    seqs = [line["seq"] for line in first + seen]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    row = await database_sync_to_async(lambda: DebugSession.objects.get(kind="logs"))()
    assert row.detail == f"file={APP_LOG}"


async def test_file_paths_are_checked_and_undeclared_ones_need_a_shell_role(
    live_pods, local_control_plane, project, user, other_user
):
    await database_sync_to_async(member)(project, user, "viewer")
    await database_sync_to_async(member)(project, other_user, "developer")
    pod = live_pods["names"][0]
    base = f"/ws/logs/member-a/{project.namespace}/{pod}/app/?file="
    viewer = await database_sync_to_async(ws_headers)(user)
    developer = await database_sync_to_async(ws_headers)(other_user)

    async def refusal(path: str, headers: Any) -> tuple[int, str]:
        comm = WebsocketCommunicator(application, base + path, headers=headers)
        assert (await comm.connect(timeout=20))[0]
        seen, code = await closed_with(comm)
        return code, seen[-1]["message"]

    token = "/var/run/secrets/kubernetes.io/serviceaccount/token"
    assert (await refusal(token, viewer))[0] == 4403  # a viewer may not read any file through "logs"
    for bad in ("var/log/app.log", "/var/log/../../etc/passwd", "/tmp/a;id", "/tmp/$(id)", "/tmp/a%20b", "/x" * 200):
        assert (await refusal(bad, developer))[0] == 4400, bad

    kubeconfig = str(local_control_plane.kubeconfig_path)
    await database_sync_to_async(pod_exec)(kubeconfig, project.namespace, pod, "echo typed-one > /tmp/own.log")
    comm = WebsocketCommunicator(application, base + "/tmp/own.log", headers=developer)
    assert (await comm.connect(timeout=20))[0]
    lines = await collect_lines(comm, 1)
    await comm.disconnect()
    assert lines[0]["text"] == "typed-one"


async def test_include_and_exclude_filter_on_the_server(live_pods, project, user):
    await database_sync_to_async(member)(project, user, "viewer")
    comm = WebsocketCommunicator(
        application,
        f"/ws/logs/member-a/{project.namespace}/{live_pods['names'][0]}/app/?include=seq%3D%5Cd%2B&exclude=healthz",
        headers=await database_sync_to_async(ws_headers)(user),
    )
    assert (await comm.connect(timeout=20))[0]
    lines = await collect_lines(comm, 8)
    await comm.disconnect()
    assert all("seq=" in line["text"] and "healthz" not in line["text"] for line in lines)

    bad = WebsocketCommunicator(
        application,
        f"/ws/logs/member-a/{project.namespace}/{live_pods['names'][0]}/app/?include=(a)%5C1",  # a backreference
        headers=await database_sync_to_async(ws_headers)(user),
    )
    assert (await bad.connect(timeout=20))[0]
    seen, code = await closed_with(bad)
    assert code == 4400 and "RE2" in seen[-1]["message"]


async def test_a_workload_stream_spans_both_member_clusters_and_picks_up_a_new_pod(spread_workload, project, user):
    await database_sync_to_async(member)(project, user, "viewer")
    workload, namespace = spread_workload["workload"], spread_workload["namespace"]
    comm = WebsocketCommunicator(
        application,
        f"/ws/workload-logs/{namespace}/{workload}/",
        headers=await database_sync_to_async(ws_headers)(user),
    )
    assert (await comm.connect(timeout=20))[0]
    sources: set[tuple[str, str]] = set()
    statuses: list[str] = []

    async def read_until_source(want: tuple[str, str], timeout: float = 40) -> None:
        deadline = time.monotonic() + timeout
        while want not in sources:
            msg = await comm.receive_json_from(timeout=max(0.1, deadline - time.monotonic()))
            if msg["type"] == "lines":
                sources.update((line["cluster"], line["pod"]) for line in msg["lines"])
            elif msg["type"] == "status":
                statuses.append(msg["message"])

    for name in spread_workload["names"]:
        await read_until_source(("member-a", name))
    await read_until_source(("member-b", spread_workload["on_b"][0]))

    joined = f"{workload}-b1"
    core = await database_sync_to_async(run_pod)(
        spread_workload["kubeconfig"], "member-b", namespace, joined, {WORKLOAD: workload}
    )
    spread_workload["created"].append((core, joined))
    await read_until_source(("member-b", joined))
    await comm.disconnect()

    assert {cluster for cluster, _ in sources} == {"member-a", "member-b"}
    assert any(s.startswith("Following 3 container(s)") and "member-a, member-b" in s for s in statuses)
    assert any(s == f"member-b/{joined}/app joined." for s in statuses)
