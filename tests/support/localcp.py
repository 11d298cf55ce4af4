"""Small helpers shared by the cluster integration tests."""

from __future__ import annotations

import uuid
from typing import TypeVar

from kubernetes import client
from kubernetes.client.rest import ApiException

from devtools.waiting import wait_for

T = TypeVar("T")


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
