"""Small helpers shared by the cluster integration tests."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TypeVar

from kubernetes import client
from kubernetes.client.rest import ApiException

T = TypeVar("T")


def wait_for(fn: Callable[[], T | None], timeout: float = 60.0, interval: float = 0.5, what: str = "") -> T:
    """Call ``fn`` until it returns something truthy; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or fn} (last={last!r})")


def make_namespace(api: client.ApiClient, prefix: str = "t") -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    client.CoreV1Api(api).create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    return name


def delete_namespace(api: client.ApiClient, name: str) -> None:
    try:
        client.CoreV1Api(api).delete_namespace(name)
    except ApiException as exc:
        if exc.status != 404:
            raise


def simple_pod(name: str, **spec: object) -> client.V1Pod:
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels={"app": name}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="app", image="busybox:1.36")], **spec),
    )


def wait_pod_running(api: client.ApiClient, namespace: str, name: str, timeout: float = 60.0) -> client.V1Pod:
    core = client.CoreV1Api(api)

    def running() -> client.V1Pod | None:
        pod = core.read_namespaced_pod(name, namespace)
        return pod if pod.status.phase == "Running" else None

    return wait_for(running, timeout, what=f"pod {namespace}/{name} Running")
