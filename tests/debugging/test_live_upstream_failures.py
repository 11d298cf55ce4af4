"""Shells and log streams whose member apiserver fails or hangs (probe 5, items 3-5), against the real local control
plane through a TCP proxy in the test (between the portal and member-a's apiserver) that can pass, hang (stop
forwarding both ways, TCP kept up: a SIGSTOPped apiserver) or refuse (reset every connection, refuse new ones):
the shared apiserver itself is never stopped.

- a shell cut by its apiserver closes 4502 naming the cluster, status "error", never 1000 (#3);
- a hung apiserver closes a shell (websocket keepalive) and a log stream (per-cluster liveness check) with 4502,
  keystrokes or not (#4); the real apiserver answers the exec websocket's pings;
- the workload log stream follows a container whose follow failed again once its member answers (#5).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import override_settings
from kubernetes import client as k8s

from console.asgi import application
from debugging.kubeexec import ExecSession
from devtools.localcp.nodes import api_client
from tests.support.debugging import closed_with, member, read_until, ws_headers
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]

FAST = {
    "DEBUG_EXEC_PING_SECONDS": 1.0,
    "DEBUG_EXEC_PING_TIMEOUT_SECONDS": 1.0,
    "DEBUG_LOG_LIVENESS_SECONDS": 0.5,
    "DEBUG_LOG_LIVENESS_TIMEOUT_SECONDS": 0.5,
    "DEBUG_LOG_HEADERS_SECONDS": 2.0,
    "DEBUG_LOG_REFOLLOW_SECONDS": 0.5,
}


class Proxy:
    """A TCP proxy on an event loop of its own (a thread): ``mode`` is "pass", "hang" or "refuse"."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target, self.mode = target, "pass"
        self.writers: set[asyncio.StreamWriter] = set()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self.loop
        ).result(10)
        self.port = self.server.sockets[0].getsockname()[1]

    def _abort_all(self) -> None:
        for writer in list(self.writers):
            writer.transport.abort()

    def refuse(self) -> None:
        self.mode = "refuse"
        self.loop.call_soon_threadsafe(self._abort_all)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                while self.mode == "hang":
                    await asyncio.sleep(0.05)
                if self.mode == "refuse":
                    break
                writer.write(data)
                await writer.drain()
        writer.transport.abort()

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        if self.mode == "refuse":
            client_w.transport.abort()
            return
        try:
            server_r, server_w = await asyncio.open_connection(*self.target)
        except OSError:
            client_w.transport.abort()
            return
        self.writers |= {client_w, server_w}
        try:
            await asyncio.gather(self._pipe(client_r, server_w), self._pipe(server_r, client_w))
        finally:
            self.writers -= {client_w, server_w}

    def close(self) -> None:
        self.refuse()
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def proxied(local_control_plane: Any, live_pods: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """member-a's ApiClient for shells and logs goes through a ``Proxy`` (the caches keep the direct address)."""
    direct = api_client(str(local_control_plane.kubeconfig_path), "member-a")
    host, port = direct.configuration.host.removeprefix("https://").rsplit(":", 1)
    proxy = Proxy((host, int(port)))
    listen = proxy.port
    cfg = k8s.Configuration()
    for key, value in vars(direct.configuration).items():
        with contextlib.suppress(Exception):
            setattr(cfg, key, value)
    cfg.host = f"https://{host}:{listen}"
    cfg.refresh_api_key_hook = None  # the kubeconfig loader's hook would set the direct address back
    api = k8s.ApiClient(cfg)
    for where in ("debugging.shell.consumer.api_for", "debugging.logs.consumer.api_for", "clusters.runtime.api_for"):
        monkeypatch.setattr(where, lambda cluster, api=api, direct=direct: api if cluster.name == "member-a" else None)
    yield proxy
    proxy.close()


async def open_socket(path: str, user: Any) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, path, headers=await database_sync_to_async(ws_headers)(user))
    assert (await comm.connect(timeout=20))[0]
    return comm


async def connected(comm: WebsocketCommunicator) -> dict[str, Any]:
    status = await comm.receive_json_from(timeout=20)
    assert status["type"] == "status" and status["state"] == "connected", status
    return status


async def developer_shell(live_pods: Any, project: Any, user: Any) -> WebsocketCommunicator:
    """A shell into the first live pod as a developer of ``project``, its first command answered."""
    await database_sync_to_async(member)(project, user, "developer")
    comm = await open_socket(f"/ws/exec/member-a/{project.namespace}/{live_pods['names'][0]}/app/", user)
    await connected(comm)
    await comm.send_json_to({"type": "stdin", "data": "echo up-$((6*7))\r"})
    await read_until(comm, "up-42")
    return comm


async def typing_until_closed(comm: WebsocketCommunicator, within: float) -> tuple[int | None, list[str]]:
    """A keystroke every 0.5 s until the socket closes or ``within`` seconds pass: (its close code, texts seen)."""
    started, seen, code = time.monotonic(), [], None
    while code is None and time.monotonic() - started < within:
        await comm.send_json_to({"type": "stdin", "data": "x"})
        with contextlib.suppress(TimeoutError):
            # not receive_output(timeout): on a timeout it cancels the application
            out = await asyncio.wait_for(comm.output_queue.get(), 0.5)
            if out["type"] == "websocket.close":
                code = out["code"]
            elif out.get("text"):
                seen.append(out["text"])
    return code, seen


async def test_a_shell_cut_by_its_apiserver_closes_4502_naming_the_cluster(live_pods, project, user, proxied):
    comm = await developer_shell(live_pods, project, user)

    proxied.refuse()
    seen, code = await closed_with(comm, timeout=20)

    assert code == 4502, seen
    assert seen[-1]["state"] == "error" and "member-a's apiserver" in seen[-1]["message"], seen


async def test_a_shell_that_exits_keeps_1000_and_its_status(live_pods, project, user, proxied):
    comm = await developer_shell(live_pods, project, user)
    await comm.send_json_to({"type": "stdin", "data": "exit 3\r"})
    seen, code = await closed_with(comm, timeout=20)

    assert code == 1000 and seen[-1] == {"type": "status", "state": "closed", "message": "Shell ended (exit 3)."}


@override_settings(**FAST, DEBUG_SHELL_IDLE_SECONDS=3600)
async def test_a_hung_apiserver_closes_a_shell_4502_even_while_the_user_types(live_pods, project, user, proxied):
    comm = await developer_shell(live_pods, project, user)

    proxied.mode = "hang"
    code, seen = await typing_until_closed(comm, within=20)

    assert code == 4502, (code, seen)
    assert "member-a's apiserver" in seen[-1] and '"error"' in seen[-1], seen


@override_settings(**FAST)
async def test_the_real_apiserver_answers_the_exec_websocket_s_pings(live_pods, project, local_control_plane):
    api = api_client(str(local_control_plane.kubeconfig_path), "member-a")
    session = ExecSession(api, project.namespace, live_pods["names"][0], "app", ["sh"], tty=True)
    await session.open()
    try:
        assert session.ws is not None and session.ws.ping_interval == 1.0
        await asyncio.sleep(4)  # four pings, each answered within the timeout, or the connection fails 1011
        assert session.ws.state.name == "OPEN" and session.ws.latency > 0
        await session.ws.ping()
    finally:
        await session.close()


@override_settings(**FAST)
@pytest.mark.parametrize("kind", ["pod", "workload"])
async def test_a_hung_apiserver_closes_a_log_stream_4502(live_pods, project, user, proxied, kind):
    await database_sync_to_async(member)(project, user, "viewer")
    if kind == "pod":
        path = f"/ws/logs/member-a/{project.namespace}/{live_pods['names'][0]}/app/?tail=1"
    else:
        path = f"/ws/workload-logs/{project.namespace}/{live_pods['workload']}/?tail=1"
    comm = await open_socket(path, user)
    await connected(comm)
    await asyncio.sleep(1.5)  # the follows are open and streaming

    proxied.mode = "hang"
    if kind == "pod":
        seen, code = await closed_with(comm, timeout=20)
        assert code == 4502, seen
        assert seen[-1]["state"] == "error" and "member-a's apiserver" in seen[-1]["message"], seen
        return
    deadline, said = time.monotonic() + 20, []
    while time.monotonic() < deadline and len([m for m in said if "failed" in m]) < 2:
        message = await comm.receive_json_from(timeout=max(0.1, deadline - time.monotonic()))
        if message["type"] == "status":
            said.append(message["message"])
    await comm.disconnect()
    assert len([m for m in said if "failed" in m and "member-a's apiserver" in m]) == 2, said


@override_settings(**FAST)
async def test_the_workload_stream_follows_a_failed_container_again(live_pods, project, user, proxied):
    await database_sync_to_async(member)(project, user, "viewer")
    comm = await open_socket(f"/ws/workload-logs/{project.namespace}/{live_pods['workload']}/?tail=1", user)
    await connected(comm)
    await asyncio.sleep(1.5)

    proxied.refuse()
    said: list[str] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len([m for m in said if "failed" in m]) < 2:
        message = await comm.receive_json_from(timeout=max(0.1, deadline - time.monotonic()))
        if message["type"] == "status":
            said.append(message["message"])
    await asyncio.sleep(2)  # a few failed retries while it still refuses
    proxied.mode = "pass"
    again: list[str] = []
    lines: set[str] = set()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (len(again) < 2 or len(lines) < 2):
        message = await comm.receive_json_from(timeout=max(0.1, deadline - time.monotonic()))
        if message["type"] == "status" and "again" in message["message"]:
            again.append(message["message"])
        elif message["type"] == "lines" and again:
            lines |= {line["pod"] for line in message["lines"]}
    await comm.disconnect()

    assert len([m for m in said if "failed" in m]) == 2, said
    assert len(again) == 2 and all("member-a" in m for m in again), (said, again)
    assert lines == set(live_pods["names"]), lines


@override_settings(DEBUG_EXEC_PING_SECONDS=600, DEBUG_SHELL_IDLE_SECONDS=3, DEBUG_SHELL_WARN_SECONDS=1)
async def test_keystrokes_into_a_shell_that_answers_nothing_do_not_hold_it_open(live_pods, project, user, proxied):
    """Without the keepalive (a long interval here), the idle timeout still closes a shell whose upstream went silent
    while the user keeps typing: input that nothing answers is no activity."""
    comm = await developer_shell(live_pods, project, user)

    proxied.mode = "hang"
    started = time.monotonic()
    code, _ = await typing_until_closed(comm, within=15)

    assert code == 4408 and time.monotonic() - started < 10, code
