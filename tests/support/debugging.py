"""Fixtures for the debugging tests: one project per fixture, members by role, websocket headers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.test import Client
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from clusters import runtime
from clusters.models import Cluster
from console.asgi import application
from devtools.localcp.nodes import api_client
from projects.models import Membership, Project
from tests.support.fakes import FilledCache, fake_pod
from tests.support.wsclient import WebsocketCommunicator

ORIGIN = b"http://127.0.0.1"
HOST = b"127.0.0.1"  # a handshake's Origin must be the portal's own origin (console.websocket_origin)


WORKLOAD = "pincompute.io/workload"


@pytest.fixture
def project(db: Any) -> Project:
    return Project.objects.create(name="ads", team="ads", cost_center="CC-1")


@pytest.fixture
def other_project(db: Any) -> Project:
    return Project.objects.create(name="ml", team="ml", cost_center="CC-2")


def member(project: Project, user: Any, role: str) -> Membership:
    return Membership.objects.create(project=project, user=user, role=role)


def http_origin(url: str) -> str:
    """The origin a browser sends with a handshake to ``url`` (``ws://127.0.0.1:8001/ws/...``: ``http://127.0.0.1:8001``)."""
    parts = urlsplit(url)
    return f"{'https' if parts.scheme in ('wss', 'https') else 'http'}://{parts.netloc}"


def ws_headers(user: Any | None, origin: bytes = ORIGIN) -> list[tuple[bytes, bytes]]:
    """Headers of a browser websocket handshake: Host and Origin plus the session cookie of a force_login."""
    headers = [(b"host", HOST), (b"origin", origin)]
    if user is not None:
        client = Client()
        client.force_login(user)
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    return headers


@pytest.fixture
def fake_member(db: Any, monkeypatch: pytest.MonkeyPatch) -> FilledCache:
    """A member cluster `member-x` whose cache holds proj-ads/web-1 (container app) and proj-ml/train-1."""
    Cluster.objects.create(name="member-x", region="r", zone="r-a", role="member", api_server="https://127.0.0.1:1")
    cache = FilledCache(
        {
            "pods": [
                fake_pod("web-1", "proj-ads", labels={"pincompute.io/workload": "web"}),
                fake_pod("train-1", "proj-ml"),
            ]
        }
    )
    monkeypatch.setattr("clusters.runtime.member_caches", lambda: {"member-x": cache})
    return cache


@pytest.fixture
async def close_thread_connections() -> Any:
    """Consumers reach the ORM from asgiref's sync thread and the websockets' pinned threads (console.syncthreads);
    channels' test communicators skip its closing of their connections. Close them afterwards: each goes back to the
    pool (console.settings), and the test database can be dropped at the end of the session."""
    from channels.db import database_sync_to_async
    from django.db import connections

    from console.asgi import application

    yield
    await _within(database_sync_to_async(connections.close_all)(), "asgiref's sync thread")
    for thread in application.application_mapping["websocket"].threads:
        await _within(asyncio.wrap_future(thread.submit(connections.close_all)), f"websocket thread {thread}")


async def _within(step: Any, what: str, seconds: float = 60) -> None:
    """``step`` awaited, or a failure that shows every thread's stack (a CI run once hung here for 600 s)."""
    try:
        await asyncio.wait_for(step, seconds)
    except TimeoutError:
        stacks = "\n".join(
            f"--- {thread}\n" + "".join(traceback.format_stack(sys._current_frames()[thread.ident]))
            for thread in threading.enumerate()
            if thread.ident in sys._current_frames()
        )
        raise AssertionError(f"closing the database connections of {what} took over {seconds}s:\n{stacks}") from None


@pytest.fixture
def live_pods(local_control_plane: Any, project: Any) -> Iterator[dict[str, Any]]:
    """Registers the local clusters and runs two Running pods of workload `web` in proj-ads on member-a."""
    call_command(
        "import_clusters",
        "--kubeconfig",
        str(local_control_plane.kubeconfig_path),
        *[f"--zone={c.name}={c.zone}" for c in local_control_plane.clusters],
    )
    core = k8s.CoreV1Api(api_client(str(local_control_plane.kubeconfig_path), "member-a"))
    try:
        core.create_namespace(k8s.V1Namespace(metadata=k8s.V1ObjectMeta(name=project.namespace)))
    except ApiException as exc:
        if exc.status != 409:
            raise
    workload = f"web-{uuid.uuid4().hex[:6]}"
    names = [f"{workload}-{i}" for i in range(2)]
    for name in names:
        core.create_namespaced_pod(
            project.namespace,
            k8s.V1Pod(
                metadata=k8s.V1ObjectMeta(name=name, labels={WORKLOAD: workload}),
                spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="app", image="busybox")]),
            ),
        )
    cache = runtime.member_caches()["member-a"]
    deadline = time.monotonic() + 60
    while not all(
        (cache.get("pods", project.namespace, n) or {}).get("status", {}).get("phase") == "Running" for n in names
    ):
        assert time.monotonic() < deadline, "pods did not become Running in the cache"
        time.sleep(0.2)
    yield {"names": names, "workload": workload, "namespace": project.namespace}
    for name in names:
        core.delete_namespaced_pod(name, project.namespace, grace_period_seconds=0)
    runtime.shutdown()


@pytest.fixture
def uvicorn_default_ws() -> Any:
    """The ASGI app under uvicorn with its default websocket implementation (legacy ``websockets``)."""
    import uvicorn

    from console.asgi import application

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(application, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"ws://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(10)


def run_pod(kubeconfig: str, cluster: str, namespace: str, name: str, labels: dict[str, str]) -> k8s.CoreV1Api:
    """Create a busybox pod on ``cluster`` (its namespace too) and wait until the portal's cache sees it Running."""
    core = k8s.CoreV1Api(api_client(kubeconfig, cluster))
    try:
        core.create_namespace(k8s.V1Namespace(metadata=k8s.V1ObjectMeta(name=namespace)))
    except ApiException as exc:
        if exc.status != 409:
            raise
    core.create_namespaced_pod(
        namespace,
        k8s.V1Pod(
            metadata=k8s.V1ObjectMeta(name=name, labels=labels),
            spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="app", image="busybox")]),
        ),
    )
    cache, deadline = runtime.member_caches()[cluster], time.monotonic() + 60
    while (cache.get("pods", namespace, name) or {}).get("status", {}).get("phase") != "Running":
        assert time.monotonic() < deadline, f"{cluster}/{name} did not become Running in the cache"
        time.sleep(0.2)
    return core


@pytest.fixture
def spread_workload(live_pods: dict[str, Any], local_control_plane: Any) -> Iterator[dict[str, Any]]:
    """``live_pods``' workload with one more pod on member-b: the workload spans both member clusters."""
    kubeconfig = str(local_control_plane.kubeconfig_path)
    name = f"{live_pods['workload']}-b0"
    core = run_pod(kubeconfig, "member-b", live_pods["namespace"], name, {WORKLOAD: live_pods["workload"]})
    created = [(core, name)]
    yield {**live_pods, "on_b": [name], "created": created, "kubeconfig": kubeconfig}
    for api, pod in created:
        with contextlib.suppress(ApiException):
            api.delete_namespaced_pod(pod, live_pods["namespace"], grace_period_seconds=0)


async def read_until(comm: WebsocketCommunicator, needle: str, timeout: float = 20) -> str:
    """Concatenate stdout until `needle` appears. A close before it fails naming the close code and every other
    message seen (a CI run once saw only "closed" here: the status that said why had been skipped)."""
    seen, others, deadline = "", [], time.monotonic() + timeout
    while needle not in seen:
        frame = await comm.receive_output(timeout=max(0.1, deadline - time.monotonic()))
        if frame["type"] == "websocket.close":
            raise AssertionError(f"closed {frame.get('code')} ({frame.get('reason')!r}) before {needle!r}: {others}")
        msg = json.loads(frame["text"])
        if msg["type"] == "stdout":
            seen += msg["data"]
        else:
            others.append(msg)
    return seen


async def collect_lines(comm: WebsocketCommunicator, count: int, timeout: float = 30) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while len(lines) < count:
        msg = await comm.receive_json_from(timeout=max(0.1, deadline - time.monotonic()))
        if msg["type"] == "lines":
            lines.extend(msg["lines"])
        elif msg["type"] == "line":
            lines.append(msg)
    return lines


async def open_shell(path: str, headers: list[tuple[bytes, bytes]]) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, path, headers=headers)
    assert (await comm.connect(timeout=20))[0]
    status = await comm.receive_json_from(timeout=20)
    assert status["state"] == "connected", status
    return comm


async def closed_with(comm: WebsocketCommunicator, timeout: float = 10) -> tuple[list[dict[str, Any]], int]:
    """Messages until the close frame, and its code."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while True:
        out = await comm.receive_output(timeout=max(0.1, deadline - time.monotonic()))
        if out["type"] == "websocket.close":
            return seen, out["code"]
        seen.append(json.loads(out["text"]))


EXEC = "/ws/exec/member-x/proj-ads/web-1/app/"


LOGS = "/ws/logs/member-x/proj-ads/web-1/app/"


async def refused_with(path: str, headers: list[tuple[bytes, bytes]]) -> tuple[dict[str, Any], int]:
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect()
    assert connected
    status = await comm.receive_json_from(timeout=5)
    closed = await comm.receive_output(timeout=5)
    await comm.wait()
    assert closed["type"] == "websocket.close"
    return status, closed["code"]


APP_LOG = "/var/log/app.log"
