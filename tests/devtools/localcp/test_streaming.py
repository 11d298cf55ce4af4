"""Logs (follow) and interactive exec through the member apiserver to kwok."""

from __future__ import annotations

import json
import random
import re
import time

import pytest
from kubernetes import client
from kubernetes.stream import stream
from kubernetes.stream.ws_client import RESIZE_CHANNEL

from tests.support.localcp import delete_namespace, make_namespace, simple_pod, wait_pod_running

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

CRI_SEQ = re.compile(r"seq=(\d+)")


@pytest.fixture
def running_pod(member_api_clients: dict[str, client.ApiClient]):
    api = member_api_clients["member-b"]
    ns = make_namespace(api)
    client.CoreV1Api(api).create_namespaced_pod(ns, simple_pod("shell"))
    wait_pod_running(api, ns, "shell")
    yield api, ns, "shell"
    delete_namespace(api, ns)


def test_follow_logs_streams_new_lines(running_pod) -> None:
    api, ns, name = running_pod
    resp = client.CoreV1Api(api).read_namespaced_pod_log(
        name, ns, follow=True, tail_lines=2, _preload_content=False, _request_timeout=(5, 30)
    )
    seqs: list[int] = []
    started = time.monotonic()
    try:
        buf = b""
        for chunk in resp.stream(amt=1024, decode_content=False):
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                m = CRI_SEQ.search(line.decode())
                if m:
                    seqs.append(int(m.group(1)))
            if len(seqs) >= 5 or time.monotonic() - started > 20:
                break
    finally:
        resp.release_conn()
    assert len(seqs) >= 5, seqs
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), seqs
    # lines kept arriving while we were connected (only 2 were in the tail when we connected)
    assert time.monotonic() - started >= 2.0


def test_exec_tty_roundtrip_and_resize(running_pod) -> None:
    api, ns, name = running_pod
    ws = stream(
        client.CoreV1Api(api).connect_get_namespaced_pod_exec,
        name,
        ns,
        command=["/bin/sh"],
        stdin=True,
        stdout=True,
        stderr=True,
        tty=True,
        _preload_content=False,
    )
    try:
        ws.write_channel(RESIZE_CHANNEL, json.dumps({"Width": 123, "Height": 45}))
        token = f"hello-{random.randint(1000, 9999)}"
        ws.write_stdin(f"echo {token}-$((6*7)); stty size\n")
        out = ""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (f"{token}-42" in out and "45 123" in out):
            ws.update(timeout=1)
            out += ws.read_stdout()
        assert f"{token}-42" in out, out  # evaluated by a real shell, not just echoed by the tty
        assert "45 123" in out, out  # the resize reached the pty
        ws.write_stdin("exit 3\n")
        deadline = time.monotonic() + 10
        while ws.is_open() and time.monotonic() < deadline:
            ws.update(timeout=1)
    finally:
        ws.close()


def test_exec_without_tty_returns_output(running_pod) -> None:
    api, ns, name = running_pod
    out = stream(
        client.CoreV1Api(api).connect_get_namespaced_pod_exec,
        name,
        ns,
        command=["sh", "-c", "echo out-$((1+1)); pwd; id -u"],
        stdin=False,
        stdout=True,
        stderr=True,
        tty=False,
    )
    assert "out-2" in out
    assert out.split()[-2:] == ["/", "65534"], out  # in the pod's own sandbox, as the pod user
