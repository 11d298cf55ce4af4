"""Happy paths against the real local control plane: a shell round-trip, resize, audit, live logs."""

from __future__ import annotations

import time

import pytest
from channels.db import database_sync_to_async

from base.models import AuditEvent
from console.asgi import application
from debugging.shell.consumer import MAX_STDIN_CHARS, TOO_MUCH_INPUT
from tests.support.debugging import WORKLOAD, collect_lines, member, open_shell, read_until, ws_headers
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


async def test_shell_round_trip_resize_and_audit(live_pods, project, user):
    member(project, user, "developer")
    pod = live_pods["names"][0]
    comm = WebsocketCommunicator(
        application, f"/ws/exec/member-a/{project.namespace}/{pod}/app/", headers=ws_headers(user)
    )
    connected, _ = await comm.connect(timeout=20)
    assert connected
    status = await comm.receive_json_from(timeout=20)
    assert status["state"] == "connected", status

    await comm.send_json_to({"type": "resize", "cols": 91, "rows": 27})
    await comm.send_json_to({"type": "stdin", "data": "echo hello-$((6*7)); stty size\r"})
    output = await read_until(comm, "27 91")
    assert "hello-42" in output

    await comm.send_json_to({"type": "stdin", "data": "exit 3\r"})
    closed_status = None
    while closed_status is None:
        msg = await comm.receive_json_from(timeout=20)
        closed_status = msg if msg["type"] == "status" else None
    close = await comm.receive_output(timeout=10)
    await comm.wait()

    assert closed_status["state"] == "closed" and "exit 3" in closed_status["message"]
    assert close == {
        "type": "websocket.close",
        "code": 1000,
        "reason": "Shell ended (exit 3).",
    }  # why, in the frame too
    opened, ended = [
        await database_sync_to_async(lambda a=a: AuditEvent.objects.get(action=a))()
        for a in ("shell.open", "shell.close")
    ]
    assert opened.actor_id == user.pk and opened.cluster == "member-a" and opened.project_name == "ads"
    assert ended.target_name == f"{project.namespace}/{pod}/app"
    assert ended.after["bytes_in"] > 20 and ended.after["bytes_out"] > 20 and ended.after["reason"] == "exit 3"
    assert ended.after["duration_s"] > 0


async def test_closing_the_browser_ends_the_shell_and_audits_it(live_pods, project, user):
    member(project, user, "owner")
    comm = WebsocketCommunicator(
        application, f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/", headers=ws_headers(user)
    )
    await comm.connect(timeout=20)
    assert (await comm.receive_json_from(timeout=20))["state"] == "connected"
    await comm.send_json_to({"type": "stdin", "data": "echo ready-$((1+1))\r"})
    await read_until(comm, "ready-2")

    await comm.disconnect()

    ended = await database_sync_to_async(lambda: AuditEvent.objects.get(action="shell.close"))()
    assert ended.after["reason"] == "client closed" and ended.after["bytes_out"] > 0


async def test_an_input_message_over_the_limit_is_refused_whole_with_a_notice(live_pods, project, user):
    """Running the first 64 Ki characters of a paste and dropping the rest could run half a command: the message is
    refused whole and the user told; the shell carries on (the browser and the CLI send input in pieces)."""
    member(project, user, "developer")
    comm = WebsocketCommunicator(
        application, f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/", headers=ws_headers(user)
    )
    await comm.connect(timeout=20)
    assert (await comm.receive_json_from(timeout=20))["state"] == "connected"
    await comm.send_json_to({"type": "stdin", "data": "echo cut-" + "x" * MAX_STDIN_CHARS + "\r"})
    notice = await comm.receive_json_from(timeout=20)
    while notice["type"] == "stdout":  # the prompt
        notice = await comm.receive_json_from(timeout=20)
    assert notice == {"type": "notice", "message": TOO_MUCH_INPUT}
    await comm.send_json_to({"type": "stdin", "data": "echo after-$((2+3))\r"})
    output = await read_until(comm, "after-5")
    assert "cut-" not in output
    await comm.disconnect()


async def test_log_stream_has_increasing_seq_keeps_following_and_resumes(live_pods, project, user):
    member(project, user, "viewer")
    path = f"/ws/logs/member-a/{project.namespace}/{live_pods['names'][0]}/app/"
    comm = WebsocketCommunicator(application, path, headers=ws_headers(user))
    assert (await comm.connect(timeout=20))[0]

    first = await collect_lines(comm, 5)
    tail_end = first[-1]["seq"]
    later = await collect_lines(comm, 2, timeout=10)  # the log pump writes one line a second
    await comm.disconnect()

    seqs = [line["seq"] for line in first + later]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert later[-1]["seq"] > tail_end and "seq=" in later[-1]["text"]
    assert {(line["pod"], line["container"]) for line in first} == {(live_pods["names"][0], "app")}

    resumed = WebsocketCommunicator(application, path, headers=ws_headers(user))
    assert (await resumed.connect(timeout=20))[0]
    await resumed.send_json_to({"type": "resume", "after_seq": later[-1]["seq"]})
    again = await collect_lines(resumed, 1, timeout=10)
    await resumed.disconnect()

    assert all(line["seq"] > later[-1]["seq"] for line in again)
    assert all(line["text"] != later[-1]["text"] for line in again)


async def test_selector_stream_interleaves_lines_of_every_matching_pod(live_pods, project, user):
    member(project, user, "viewer")
    comm = WebsocketCommunicator(
        application,
        f"/ws/logs/member-a/{project.namespace}/?selector={WORKLOAD}={live_pods['workload']}",
        headers=ws_headers(user),
    )
    assert (await comm.connect(timeout=20))[0]

    lines = await collect_lines(comm, 20)
    await comm.disconnect()

    assert {line["pod"] for line in lines} == set(live_pods["names"])
    assert [line["seq"] for line in lines] == sorted({line["seq"] for line in lines})
    assert await database_sync_to_async(lambda: AuditEvent.objects.filter(action="logs.open").count())() == 1


async def test_a_new_portal_processs_first_pod_reads_wait_for_the_first_list(live_pods, project, user, monkeypatch):
    """Caches start on a process's first use: a pod not listed yet is not a gone one (a web pod that had just
    rolled served a resumed log stream from the archive, and refused shells, until its first list came). The
    first list of pods is held back a second, as a loaded apiserver or a large cluster does."""
    from asgiref.sync import sync_to_async

    from clusters import runtime
    from debugging.authz import resolve_pod, resolve_selector
    from pincompute.kube.listwatch import ListWatch

    member(project, user, "developer")
    pod, listing = live_pods["names"][0], ListWatch._list

    def slow_first_list(self: ListWatch) -> None:
        if self.name.endswith("-pods") and not self.synced.is_set():
            time.sleep(1)
        listing(self)

    monkeypatch.setattr(ListWatch, "_list", slow_first_list)

    def first_reads() -> tuple[str, set[str]]:
        runtime.shutdown()  # as a freshly started portal process: no cache yet
        found = resolve_pod(user, "member-a", project.namespace, pod, container="app", need_exec=True).name
        runtime.shutdown()
        selected = resolve_selector(user, "member-a", project.namespace, f"{WORKLOAD}={live_pods['workload']}")
        return found, {p["metadata"]["name"] for p in selected.pods}

    assert await sync_to_async(first_reads)() == (pod, set(live_pods["names"]))
    await sync_to_async(runtime.shutdown)()
    comm = await open_shell(f"/ws/exec/member-a/{project.namespace}/{pod}/app/", ws_headers(user))
    await comm.disconnect()
    await sync_to_async(runtime.shutdown)()  # the later tests' caches list at full speed
