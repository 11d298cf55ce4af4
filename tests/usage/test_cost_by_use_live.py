"""Chargeback by use against the real local stack with Prometheus: a running pod says (kwok's usage annotation) it
uses three times its CPU request and less memory than requested; once the session's Prometheus has scraped that, the
minute sampler records it beside the requests, and the project's cost by use exceeds its cost by request by exactly
price x (use - request) over the sampled minutes, memory billed at its request."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from django.utils import timezone
from kubernetes.client import CoreV1Api, V1Pod
from rest_framework.test import APIClient

from clusters import runtime
from clusters.models import Cluster
from devtools.localcp.kwokcfg import USAGE_CPU_ANNOTATION, USAGE_MEMORY_ANNOTATION
from devtools.waiting import wait_for
from pincompute.quantity import parse_cpu, parse_memory
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.workload_operator import created, operator  # noqa: F401
from usage import prom
from usage.models import Resolution, UsageSample
from usage.prices import current_prices
from usage.sample_use import scrape
from usage.sampling import sample
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


def test_a_pod_using_more_than_its_request_is_billed_by_use_as_the_arithmetic_says(
    usage_metrics,
    operator,  # noqa: F811
    created,  # noqa: F811
    admin_user,
    user,
):
    project = team_project("byuse", admin_user, user, grants={"ondemand": ("16", "64Gi", "0", "0")})
    app = example("PinApp", project=project.name)
    app["spec"]["replicas"] = 1
    services.submit_workload(project, app, actor=user)
    created.append(("PinApp", project.namespace, app["metadata"]["name"]))
    cluster, pod = wait_for(lambda: a_running_pod(project.namespace), 180, interval=1, what="a Running pod")
    (container,) = pod.spec.containers
    request_m = parse_cpu(container.resources.requests["cpu"])
    request_bytes = parse_memory(container.resources.requests["memory"])
    assert request_bytes > 16 * MIB

    # the pod uses three times its CPU request and 16 MiB (below its memory request)
    notes = {USAGE_CPU_ANNOTATION: f"{3 * request_m}m", USAGE_MEMORY_ANNOTATION: "16Mi"}
    CoreV1Api(runtime.api_for(cluster)).patch_namespaced_pod(
        pod.metadata.name, project.namespace, {"metadata": {"annotations": notes}}
    )
    key = (cluster.name, project.namespace, pod.metadata.name, container.name)

    def scraped() -> bool:
        prom.memo.clear()
        found = scrape().use.get(key)
        return found is not None and abs(found.cpu - 3 * request_m) <= request_m / 20 and found.memory == 16 * MIB

    wait_for(scraped, 4 * usage_metrics.scrape_seconds + 60, interval=0.5, what="the new use in Prometheus")
    first = timezone.now().replace(second=0, microsecond=0) + timedelta(minutes=5)  # minutes no one sampled
    for minute in (first, first + timedelta(minutes=1)):
        wait_for(scraped, 4 * usage_metrics.scrape_seconds + 60, interval=0.5, what="the use still scraped")
        result = sample(minute)
        assert cluster.name in result.clusters and not result.use_missing

    rows = list(UsageSample.objects.filter(resolution=Resolution.MINUTE, project=project, start__gte=first))
    assert len(rows) == 2 and all(r.measured_pod_seconds == 60 for r in rows)
    for r in rows:  # one container: billed = max(request, use) per resource, use as Prometheus said
        assert r.cpu_request == request_m * 60 and abs(r.cpu_use - 3 * request_m * 60) <= request_m * 3
        assert r.cpu_billable == max(r.cpu_request, r.cpu_use) > r.cpu_request
        assert r.memory_use == 16 * MIB * 60 and r.memory_billable == r.memory_request == request_bytes * 60
    price = Fraction(current_prices()[(rows[0].tier, "cpu")])
    expected = sum((Fraction(r.cpu_use - r.cpu_request) for r in rows), Fraction(0)) * price / (1000 * 3600)
    request_cost = Fraction(2 * request_m * 60) * price / (1000 * 3600)

    client = APIClient()
    client.force_authenticate(user)
    window = f"{first:%Y-%m-%dT%H:%MZ},{first + timedelta(minutes=2):%Y-%m-%dT%H:%MZ}"
    body = client.get(f"/api/v1/projects/{project.name}/cost/", {"window": window, "aggregate": "workload"}).json()

    (workload,) = body["totals"]
    assert Decimal(str(workload["over_request_cost"])) == round(Decimal(expected.numerator) / expected.denominator, 6)
    assert workload["cpu_request_cost"] == pytest.approx(float(request_cost), abs=1e-6)
    assert workload["cpu_cost"] == pytest.approx(float(request_cost + expected), abs=1e-6)
    assert workload["ram_cost"] == workload["ram_request_cost"] > 0
