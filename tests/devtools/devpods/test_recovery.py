"""Dev pods recover as a kubelet's would (probe5 #11, #12), against the real local control plane.

- A Running pod whose Ready condition was set False (the node lifecycle controller does so for every pod of a
  node it saw NotReady, e.g. during an apiserver outage) is reported Ready again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from kubernetes import client

from tests.support.localcp import delete_namespace, make_namespace, simple_pod, wait_pod_running

pytestmark = [pytest.mark.integration, pytest.mark.cluster]
CLUSTER = "member-a"


@pytest.fixture
def pod(member_api_clients: dict[str, client.ApiClient]) -> Iterator[tuple[client.ApiClient, str, str]]:
    api = member_api_clients[CLUSTER]
    ns = make_namespace(api, "devpods")
    client.CoreV1Api(api).create_namespaced_pod(ns, simple_pod("recover"))
    wait_pod_running(api, ns, "recover")
    yield api, ns, "recover"
    delete_namespace(api, ns)


def ready(api: client.ApiClient, ns: str, name: str) -> str | None:
    status = client.CoreV1Api(api).read_namespaced_pod_status(name, ns).status
    return next((c.status for c in status.conditions or [] if c.type == "Ready"), None)


def wait_ready(api: client.ApiClient, ns: str, name: str, want: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while (got := ready(api, ns, name)) != want:
        assert time.monotonic() < deadline, f"pod {ns}/{name}: Ready={got}, expected {want} within {timeout} s"
        time.sleep(0.25)


def test_a_running_pod_set_not_ready_is_reported_ready_again(pod: tuple[client.ApiClient, str, str]) -> None:
    api, ns, name = pod
    wait_ready(api, ns, name, "True", 30)
    # What the node lifecycle controller does (MarkPodsNotReady): the Ready condition only, via the status subresource.
    body = {
        "status": {
            "conditions": [
                {
                    "type": "Ready",
                    "status": "False",
                    "reason": "NodeNotReady",
                    "lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
            ]
        }
    }
    patched = client.CoreV1Api(api).patch_namespaced_pod_status(name, ns, body)
    assert patched.status.phase == "Running"
    assert {c.type: c.status for c in patched.status.conditions}["Ready"] == "False"
    wait_ready(api, ns, name, "True", 30)
    status = client.CoreV1Api(api).read_namespaced_pod_status(name, ns).status
    conditions = {c.type: c.status for c in status.conditions}
    assert status.phase == "Running"
    assert conditions == {"Initialized": "True", "Ready": "True", "ContainersReady": "True", "PodScheduled": "True"}
