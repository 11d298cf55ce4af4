"""Deployments, GPU scheduling and Jobs on kwok nodes of a member cluster."""

from __future__ import annotations

import pytest
from kubernetes import client

from tests.support.localcp import delete_namespace, make_namespace, simple_pod, wait_for, wait_pod_running

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


@pytest.fixture
def member(member_api_clients: dict[str, client.ApiClient]) -> client.ApiClient:
    return member_api_clients["member-a"]


@pytest.fixture
def namespace(member: client.ApiClient):
    ns = make_namespace(member)
    yield ns
    delete_namespace(member, ns)


def test_deployment_pods_run_on_kwok_nodes(member: client.ApiClient, namespace: str) -> None:
    apps, core = client.AppsV1Api(member), client.CoreV1Api(member)
    labels = {"app": "web"}
    apps.create_namespaced_deployment(
        namespace,
        client.V1Deployment(
            metadata=client.V1ObjectMeta(name="web"),
            spec=client.V1DeploymentSpec(
                replicas=3,
                selector=client.V1LabelSelector(match_labels=labels),
                template=client.V1PodTemplateSpec(
                    metadata=client.V1ObjectMeta(labels=labels),
                    spec=client.V1PodSpec(
                        containers=[
                            client.V1Container(
                                name="web",
                                image="nginx:1.27",
                                resources=client.V1ResourceRequirements(requests={"cpu": "500m", "memory": "256Mi"}),
                            )
                        ]
                    ),
                ),
            ),
        ),
    )

    def all_running() -> list[client.V1Pod] | None:
        pods = core.list_namespaced_pod(namespace, label_selector="app=web").items
        ok = [p for p in pods if p.status.phase == "Running" and p.status.pod_ip]
        return pods if len(ok) == 3 else None

    pods = wait_for(all_running, 90, what="3 Running pods")
    nodes = {n.metadata.name: n for n in core.list_node(label_selector="type=kwok").items}
    for pod in pods:
        assert pod.spec.node_name in nodes, pod.spec.node_name
    wait_for(
        lambda: (apps.read_namespaced_deployment_status("web", namespace).status.ready_replicas or 0) == 3,
        60,
        what="deployment readyReplicas == 3",
    )


def test_gpu_pod_lands_on_gpu_family_node(member: client.ApiClient, namespace: str) -> None:
    core = client.CoreV1Api(member)
    pod = simple_pod("trainer")
    pod.spec.containers[0].resources = client.V1ResourceRequirements(
        requests={"nvidia.com/gpu": "8"}, limits={"nvidia.com/gpu": "8"}
    )
    core.create_namespaced_pod(namespace, pod)
    pod = wait_pod_running(member, namespace, "trainer")
    node = core.read_node(pod.spec.node_name)
    assert node.metadata.labels["pincompute.io/hardware-family"] == "gpu"
    assert node.metadata.labels["node.kubernetes.io/instance-type"] == "g5.48xlarge"
    assert node.status.allocatable["nvidia.com/gpu"] == "8"


def test_job_completes(member: client.ApiClient, namespace: str) -> None:
    batch = client.BatchV1Api(member)
    batch.create_namespaced_job(
        namespace,
        client.V1Job(
            metadata=client.V1ObjectMeta(name="once"),
            spec=client.V1JobSpec(
                backoff_limit=0,
                completions=2,
                parallelism=2,
                template=client.V1PodTemplateSpec(
                    spec=client.V1PodSpec(
                        restart_policy="Never",
                        containers=[client.V1Container(name="main", image="busybox:1.36", command=["true"])],
                    )
                ),
            ),
        ),
    )

    def complete() -> client.V1Job | None:
        job = batch.read_namespaced_job_status("once", namespace)
        conds = {c.type: c.status for c in (job.status.conditions or [])}
        return job if conds.get("Complete") == "True" else None

    job = wait_for(complete, 90, what="Job Complete")
    assert job.status.succeeded == 2
    pods = client.CoreV1Api(member).list_namespaced_pod(namespace, label_selector="job-name=once").items
    assert {p.status.phase for p in pods} == {"Succeeded"}
