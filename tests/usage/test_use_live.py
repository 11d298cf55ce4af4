"""Use from Prometheus against the real local stack: kwok emulates each container's use (the pod's
``kwok.x-k8s.io/usage-*`` annotations), the session's Prometheus scrapes kwok's ``/metrics/resource`` endpoints,
and a running pod's use against its request shows on its project's use page and in the API within two scrape
intervals of the pod saying what it uses."""

from __future__ import annotations

import pytest
from kubernetes.client import CoreV1Api, V1Pod

from clusters import runtime
from clusters.models import Cluster
from devtools.localcp.kwokcfg import USAGE_CPU_ANNOTATION, USAGE_MEMORY_ANNOTATION
from devtools.waiting import wait_for
from pincompute.quantity import parse_cpu
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.workload_operator import created, operator  # noqa: F401
from usage import use
from workloads import services
from workloads.examples import example

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
MIB = 1 << 20


def a_running_pod(namespace: str) -> tuple[Cluster, V1Pod] | None:
    for cluster in Cluster.objects.filter(role="member").order_by("name"):
        for pod in CoreV1Api(runtime.api_for(cluster)).list_namespaced_pod(namespace).items:
            cached = runtime.member_caches()[cluster.name].get("pods", namespace, pod.metadata.name)
            if pod.status.phase == "Running" and (cached or {}).get("status", {}).get("phase") == "Running":
                return cluster, pod
    return None


def test_a_running_pods_use_shows_on_its_pages_within_two_scrapes(
    usage_metrics,
    operator,  # noqa: F811
    created,  # noqa: F811
    admin_user,
    user,
    client,
):
    project = team_project("use", admin_user, user, grants={"ondemand": ("16", "64Gi", "0", "0")})
    app = example("PinApp", project=project.name)
    services.submit_workload(project, app, actor=user)
    created.append(("PinApp", project.namespace, app["metadata"]["name"]))
    cluster, pod = wait_for(lambda: a_running_pod(project.namespace), 180, interval=1, what="a Running pod")
    container = pod.spec.containers[0]
    request_cpu = parse_cpu(container.resources.requests["cpu"]) / 1000

    # the pod starts using a tenth of its CPU request and 96 MiB
    notes = {USAGE_CPU_ANNOTATION: f"{int(request_cpu * 100)}m", USAGE_MEMORY_ANNOTATION: "96Mi"}
    CoreV1Api(runtime.api_for(cluster)).patch_namespaced_pod(
        pod.metadata.name, project.namespace, {"metadata": {"annotations": notes}}
    )

    def seen() -> use.Use | None:
        _, report = use.project_use(user, project.name, {"pod": pod.metadata.name, "level": "container"})
        row = next((r for r in report.rows if r.container == container.name), None)
        moved = row is not None and row.measured and abs((row.memory_use or 0) - 96 * MIB) < 1
        return row if moved and abs((row.cpu_use or 0) - request_cpu / 10) < request_cpu / 100 else None

    row = wait_for(seen, 4 * usage_metrics.scrape_seconds + 30, interval=0.5, what="the new use in Prometheus")
    assert row.cpu_waste == pytest.approx(row.cpu_request - request_cpu / 10, rel=0.02)
    assert row.waste_cost > 0

    client.force_login(user)
    page = client.get(f"/usage/projects/{project.name}/use/", {"pod": pod.metadata.name, "level": "container"})
    assert page.status_code == 200 and pod.metadata.name in page.content.decode()
    assert "0.094" in page.content.decode()  # 96 MiB in GiB
    body = client.get(f"/api/v1/projects/{project.name}/use/", {"level": "pod"}).json()
    assert any(r["pod"] == pod.metadata.name and r["memory_use"] == 96 * MIB for r in body["rows"])
