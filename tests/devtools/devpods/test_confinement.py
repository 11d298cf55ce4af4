"""Dev pods are confined (issue 14 §5): a shell in a kwok pod runs as the pod user in the pod's own
filesystem, with no host file, credential or host network; each pod has its own console and file logs.

Against the real local control plane: kubectl-equivalent exec (kubernetes.stream), the portal's own exec
session (debugging.kubeexec.ExecSession) and pod logs through the member apiserver and kwok.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client
from kubernetes.stream import stream

from debugging.kubeexec import ExecResult, ExecSession
from devtools.localcp import LocalControlPlane
from devtools.localcp.pods.podfs import POD_UID
from tests.support.localcp import delete_namespace, make_namespace, simple_pod, wait_pod_running

pytestmark = [pytest.mark.integration, pytest.mark.cluster]
ROOT = Path(__file__).resolve().parents[3]
CLUSTER = "member-a"


@pytest.fixture
def two_pods(member_api_clients: dict[str, client.ApiClient]) -> Iterator[tuple[client.ApiClient, str, list[str]]]:
    api = member_api_clients[CLUSTER]
    ns = make_namespace(api, "devpods")
    names = ["pod-a", "pod-b"]
    for name in names:
        client.CoreV1Api(api).create_namespaced_pod(ns, simple_pod(name))
    for name in names:
        wait_pod_running(api, ns, name)
    yield api, ns, names
    delete_namespace(api, ns)


def open_exec(api: client.ApiClient, ns: str, pod: str, command: list[str], **kwargs: Any) -> Any:
    """A non-tty exec: its output (``_preload_content=True``) or the open websocket client (by default)."""
    kwargs.setdefault("_preload_content", False)
    return stream(
        client.CoreV1Api(api).connect_get_namespaced_pod_exec,
        pod,
        ns,
        command=command,
        stdin=False,
        stdout=True,
        stderr=True,
        tty=False,
        **kwargs,
    )


def run(api: client.ApiClient, ns: str, pod: str, command: list[str]) -> str:
    """stdout+stderr of a non-tty exec (kwok reports a non-zero exit as an error status, not raised here)."""
    return str(open_exec(api, ns, pod, command, _preload_content=True, _request_timeout=30))


def sh(api: client.ApiClient, ns: str, pod: str, script: str) -> str:
    return run(api, ns, pod, ["sh", "-c", script])


def test_a_pod_shell_runs_as_the_pod_user_and_reads_no_host_file(
    two_pods: tuple[client.ApiClient, str, list[str]], local_control_plane: LocalControlPlane
) -> None:
    api, ns, (pod, _) = two_pods
    state = local_control_plane.state_dir
    secrets = [
        ROOT / "manage.py",  # the portal's source
        ROOT / "console" / "settings.py",
        Path("/etc/shadow"),
        local_control_plane.kubeconfig_path,  # the admin token of every cluster
        state / "pki" / "admin-token",
        state / CLUSTER / "admin.kubeconfig",
        Path(f"/proc/{os.getpid()}/environ"),  # this process: the portal's settings and credentials
    ]
    assert all(p.exists() for p in secrets)  # they are there on the host: a refusal below is the sandbox's doing
    probe = "; ".join(
        f"if cat {shlex.quote(str(p))} >/dev/null 2>&1; then echo READ {p}; else echo DENIED {p}; fi" for p in secrets
    )
    own = "echo mine > /home/own.txt; cat /home/own.txt >/dev/null && echo READ own"
    out = sh(api, ns, pod, f"id -u; id -un; {probe}; {own}; ls /work {shlex.quote(str(state))} 2>&1 | head -2")

    lines = out.splitlines()
    assert lines[:2] == [str(POD_UID), "nobody"], out
    assert [line for line in lines if line.startswith("READ")] == ["READ own"], out  # only the pod's own file
    assert sum(line.startswith("DENIED") for line in lines) == len(secrets), out
    assert "No such file or directory" in out  # /work and the state dir are not even in the pod's view

    # An absolute program path is confined too (kwok's jail holds no real program), and no host process shows.
    assert run(api, ns, pod, ["/usr/bin/id", "-u"]).strip() == str(POD_UID)
    processes = run(api, ns, pod, ["/bin/ps", "-eo", "user,comm"])
    assert "kube-apiserver" not in processes and "kwok" not in processes and "python" not in processes, processes


def test_a_pod_has_no_route_to_the_host_network(
    two_pods: tuple[client.ApiClient, str, list[str]], local_control_plane: LocalControlPlane
) -> None:
    api, ns, (pod, _) = two_pods
    port = local_control_plane.cluster(CLUSTER).ports["apiserver"]  # listening on the host's loopback
    probe = f"if echo > /dev/tcp/127.0.0.1/{port}; then echo CONNECTED; else echo REFUSED; fi"
    out = run(api, ns, pod, ["bash", "-c", f"{probe} 2>/dev/null; ls /sys/class/net 2>/dev/null || ip -o link"])
    assert "REFUSED" in out and "CONNECTED" not in out, out
    assert "eth" not in out, out  # only the sandbox's own loopback


def test_two_pods_see_only_their_own_files_which_last_as_long_as_the_pod(
    two_pods: tuple[client.ApiClient, str, list[str]],
) -> None:
    api, ns, (a, b) = two_pods
    token = uuid.uuid4().hex
    sh(api, ns, a, f"echo {token} > /tmp/note; mkdir -p /data && echo {token} > /data/note")
    assert token not in sh(api, ns, b, "cat /tmp/note /data/note 2>&1; grep -r . /tmp 2>/dev/null")
    assert sh(api, ns, a, "cat /tmp/note /data/note").split() == [token, token]  # a later session still sees them
    assert sh(api, ns, b, "hostname; cat /etc/hostname").split() == [b, b]


async def test_echo_hello_through_the_portal_exec_session(
    two_pods: tuple[client.ApiClient, str, list[str]],
) -> None:
    api, ns, (pod, _) = two_pods
    session = ExecSession(api, ns, pod, "app", ["sh", "-c", "echo hello-$((6*7)); id -un; exit 3"])
    await session.open()
    out, result = "", None
    try:
        async with asyncio.timeout(30):
            async for item in session.output():
                if isinstance(item, ExecResult):
                    result = item
                else:
                    out += item
    finally:
        await session.close()
    assert "hello-42" in out and "nobody" in out, out
    assert result.exit_code == 3, result


def console_lines(api: client.ApiClient, ns: str, pod: str) -> list[str]:
    text = client.CoreV1Api(api).read_namespaced_pod_log(pod, ns, tail_lines=5, _preload_content=False).data.decode()
    return [line for line in text.splitlines() if line.strip()]


def test_console_logs_of_two_pods_differ_and_name_their_pod(
    two_pods: tuple[client.ApiClient, str, list[str]],
) -> None:
    api, ns, (a, b) = two_pods
    deadline = time.monotonic() + 20
    while min(len(console_lines(api, ns, a)), len(console_lines(api, ns, b))) < 3:
        assert time.monotonic() < deadline, "the log pump wrote no lines"
        time.sleep(0.5)
    logs_a, logs_b = console_lines(api, ns, a), console_lines(api, ns, b)
    assert all(f"/{ns}/{a}] seq=" in line for line in logs_a), logs_a
    assert all(f"/{ns}/{b}] seq=" in line for line in logs_b), logs_b
    assert not set(logs_a) & set(logs_b)


def test_a_line_appended_in_a_pod_is_read_by_tail_over_exec(
    two_pods: tuple[client.ApiClient, str, list[str]],
) -> None:
    api, ns, (pod, other) = two_pods
    marker = f"marker-{uuid.uuid4().hex[:8]}"
    follow = open_exec(api, ns, pod, ["tail", "-n", "0", "-F", "/var/log/app.log"])
    try:
        time.sleep(1.0)  # tail is following
        sh(api, ns, pod, f"echo {marker} >> /var/log/app.log")
        sh(api, ns, other, f"echo other-{marker} >> /var/log/app.log")
        out, deadline = "", time.monotonic() + 20
        while time.monotonic() < deadline and not (marker in out and re.search(rf"\[{ns}/{pod}\] seq=\d+", out)):
            follow.update(timeout=1)
            out += follow.read_stdout() if follow.peek_stdout() else ""
    finally:
        follow.close()
    assert marker in out, out  # the pod's own write
    assert re.search(rf"\[{ns}/{pod}\] seq=\d+", out), out  # and the log pump's lines for this pod
    assert f"other-{marker}" not in out and f"[{ns}/{other}]" not in out, out  # never the other pod's


def test_deleting_a_pod_ends_its_shells_and_removes_its_files(
    member_api_clients: dict[str, client.ApiClient], local_control_plane: LocalControlPlane
) -> None:
    api = member_api_clients[CLUSTER]
    ns = make_namespace(api, "devpods")
    try:
        client.CoreV1Api(api).create_namespaced_pod(ns, simple_pod("short"))
        wait_pod_running(api, ns, "short")
        root = Path(local_control_plane.cluster(CLUSTER).pods_dir or "") / ns / "short" / "fs"
        sh(api, ns, "short", "echo kept > /home/kept")
        assert (root / "home" / "kept").read_text() == "kept\n"  # the pod's root on the host, as the pod user
        assert (root / "home" / "kept").stat().st_uid == POD_UID
        shell = open_exec(api, ns, "short", ["sleep", "600"])
        client.CoreV1Api(api).delete_namespaced_pod("short", ns, grace_period_seconds=0)
        deadline = time.monotonic() + 60  # kwok's pod-delete stage, then the watch event
        while shell.is_open() or root.exists():
            assert time.monotonic() < deadline, f"shell open: {shell.is_open()}, files left: {root.exists()}"
            shell.update(timeout=0.5)
    finally:
        delete_namespace(api, ns)


def test_a_pod_labelled_off_runs_without_a_sandbox(member_api_clients: dict[str, client.ApiClient]) -> None:
    api = member_api_clients[CLUSTER]
    ns = make_namespace(api, "devpods")
    try:
        pod = simple_pod("bulk")
        pod.metadata.labels["pods.pinconsole.dev/sandbox"] = "off"
        client.CoreV1Api(api).create_namespaced_pod(ns, pod)
        wait_pod_running(api, ns, "bulk")  # kwok's pod-ready stage takes the label for the supervisor's annotation
        execs = client.CustomObjectsApi(api).list_namespaced_custom_object("kwok.x-k8s.io", "v1alpha1", ns, "execs")
        assert execs["items"] == []
        assert "not set up yet" in run(api, ns, "bulk", ["echo", "hello"])  # refused: no sandbox to run it in
    finally:
        delete_namespace(api, ns)


def test_the_broker_serves_the_pod_user_only(
    two_pods: tuple[client.ApiClient, str, list[str]], local_control_plane: LocalControlPlane
) -> None:
    """podshim runs as the pod user (kwok's Exec rules); anything else on the socket, root here, is refused."""
    _, ns, (pod, _) = two_pods
    path = Path(local_control_plane.cluster(CLUSTER).dir) / "run" / "podsb" / "broker.sock"
    with socket.socket(socket.AF_UNIX) as conn, open(os.devnull, "rb+") as null:
        conn.settimeout(10)
        conn.connect(str(path))
        request = json.dumps({"pod": f"{ns}/{pod}", "argv": ["id"]}).encode() + b"\n"
        socket.send_fds(conn, [request], [null.fileno()] * 3)
        answer = json.loads(conn.makefile().readline())
    assert os.getuid() != POD_UID
    assert answer == {"error": f"refused: only the pod user may start commands (uid {os.getuid()})"}
