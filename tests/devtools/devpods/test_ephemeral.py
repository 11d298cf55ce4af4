"""Ephemeral containers in dev pods (issue 35 §4): the pod supervisor starts one added through the
``pods/ephemeralcontainers`` subresource in the pod's sandbox and reports it in ``ephemeralContainerStatuses``;
a shell exec'd into it sees the pod's own files; a program that ends is reported terminated with its exit code."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client
from kubernetes.stream import stream

from devtools.localcp.pods.ephemeral import pending, with_status
from devtools.waiting import wait_for
from tests.support.localcp import delete_namespace, make_namespace, simple_pod, wait_pod_running

pytestmark = [pytest.mark.integration, pytest.mark.cluster]
CLUSTER = "member-a"


@pytest.fixture
def a_pod(member_api_clients: dict[str, client.ApiClient]) -> Iterator[tuple[client.ApiClient, str, str]]:
    api = member_api_clients[CLUSTER]
    ns = make_namespace(api, "ephemeral")
    client.CoreV1Api(api).create_namespaced_pod(ns, simple_pod("crashy"))
    wait_pod_running(api, ns, "crashy")
    yield api, ns, "crashy"
    delete_namespace(api, ns)


def add_debug_container(api: client.ApiClient, ns: str, pod: str, name: str, **extra: Any) -> None:
    container = {"name": name, "image": "busybox", "targetContainerName": "app", "stdin": True, "tty": True, **extra}
    body = {"spec": {"ephemeralContainers": [container]}}
    client.CoreV1Api(api).patch_namespaced_pod_ephemeralcontainers(pod, ns, body)


def ephemeral_state(api: client.ApiClient, ns: str, pod: str, name: str, want: str) -> Any:
    def found() -> Any:
        live = client.CoreV1Api(api).read_namespaced_pod_status(pod, ns)
        statuses = live.status.ephemeral_container_statuses or []
        return next((s for s in statuses if s.name == name and getattr(s.state, want) is not None), None)

    return wait_for(found, 60, what=f"{name} {want}")


def test_a_debug_container_runs_in_the_pods_sandbox_and_its_shell_sees_the_pods_files(a_pod) -> None:
    api, ns, pod = a_pod
    add_debug_container(api, ns, pod, "debugger-abcde")

    status = ephemeral_state(api, ns, pod, "debugger-abcde", "running")
    out = stream(
        client.CoreV1Api(api).connect_get_namespaced_pod_exec,
        pod,
        ns,
        container="debugger-abcde",
        command=["sh", "-c", "hostname; head -1 /var/log/app.log"],
        stdin=False,
        stdout=True,
        stderr=True,
        tty=False,
        _request_timeout=30,
    )

    assert status.image == "busybox" and status.ready is False and status.container_id.endswith("/debugger-abcde")
    assert out.splitlines()[0] == pod and f"[{ns}/{pod}] seq=" in out  # the pod's own log file, written by its program


def test_a_debug_container_whose_program_ends_is_reported_terminated_with_its_exit_code(a_pod) -> None:
    api, ns, pod = a_pod
    add_debug_container(api, ns, pod, "debugger-ended", command=["sh", "-c", "exit 3"])

    status = ephemeral_state(api, ns, pod, "debugger-ended", "terminated")

    assert (status.state.terminated.exit_code, status.state.terminated.reason) == (3, "Error")


def test_pending_names_the_containers_without_a_status_and_with_status_replaces_by_name() -> None:
    pod = {
        "metadata": {"namespace": "n", "name": "p", "uid": "u"},
        "spec": {"ephemeralContainers": [{"name": "d1", "image": "i"}, {"name": "d2", "image": "i", "args": ["x"]}]},
        "status": {"ephemeralContainerStatuses": [{"name": "d1"}]},
    }

    found = pending(pod)
    replaced = with_status([{"name": "d1", "v": 1}, {"name": "d2", "v": 1}], {"name": "d1", "v": 2})

    assert [(e.name, e.argv) for e in found] == [("d2", ("x",))]
    assert replaced == [{"name": "d2", "v": 1}, {"name": "d1", "v": 2}]
