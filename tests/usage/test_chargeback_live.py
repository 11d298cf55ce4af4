"""Chargeback against the real local control plane: workloads submitted through the product run on the members
(kwok), the periodic task samples the watch caches, and the report matches the requests of the pods the members'
apiservers say are running, per workload, tier and cluster; a Reserved grant's unrequested part is charged; a
doubled run changes nothing."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import pytest
from kubernetes import client

from clusters import runtime
from clusters.models import Cluster
from devtools.waiting import wait_for
from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL
from pincompute.quantity import parse_cpu, parse_memory
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.workload_operator import created, operator  # noqa: F401
from usage import queries
from usage.models import UsageSample
from usage.tasks import sample_usage
from workloads import services
from workloads.examples import example

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
TIER_OF_CLASS = {"pincompute-reserved": "reserved", "pincompute-ondemand": "ondemand"}


def running_requests(namespace: str) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(workload, tier, cluster) -> (milli-cores, bytes) of the Running pods, as each member's apiserver lists them."""
    found: dict[tuple[str, str, str], tuple[int, int]] = defaultdict(lambda: (0, 0))
    for cluster in Cluster.objects.filter(role="member"):
        pods = client.CoreV1Api(runtime.api_for(cluster)).list_namespaced_pod(namespace).items
        for pod in pods:
            if pod.status.phase != "Running":
                continue
            labels = pod.metadata.labels or {}
            key = (f"{labels[KIND_LABEL]}/{labels[WORKLOAD_LABEL]}", TIER_OF_CLASS[pod.spec.priority_class_name],
                   cluster.name)  # fmt: skip
            cpu, memory = found[key]
            for c in pod.spec.containers:
                requests = (c.resources and c.resources.requests) or {}
                cpu += parse_cpu(requests.get("cpu", "0"))
                memory += parse_memory(requests.get("memory", "0"))
            found[key] = (cpu, memory)
    return dict(found)


def cached_running(namespace: str) -> int:
    return sum(
        1 for cache in runtime.member_caches().values() for p in cache.list("pods", namespace)
        if (p.get("status") or {}).get("phase") == "Running"
    )  # fmt: skip


def test_the_report_matches_the_requests_that_were_running(operator, created, admin_user, user):  # noqa: F811
    project = team_project(
        "cost", admin_user, user, grants={"ondemand": ("16", "64Gi", "0", "0"), "reserved": ("8", "32Gi", "0", "0")}
    )
    ns = project.namespace
    app = example("PinApp", project=project.name)
    service = example("PinterestService", project=project.name)
    service["spec"]["tier"] = "Reserved"
    for document in (app, service):
        services.submit_workload(project, document, actor=user)
        created.append((document["kind"], ns, document["metadata"]["name"]))
    expected_pods = app["spec"]["replicas"] + service["spec"]["replicas"]

    def settled() -> dict | None:
        return running_requests(ns) if cached_running(ns) == expected_pods == _count_running(ns) else None

    truth = wait_for(settled, 180, interval=1, what="every pod Running on the members and in the caches")

    first = sample_usage.apply().get()
    rows_after_first = list(UsageSample.objects.order_by("pk").values_list("pk", "cpu_request"))
    doubled = sample_usage.apply().get()

    assert set(first["clusters"]) == {"member-a", "member-b"} and not first["skipped"]
    assert doubled["minute"] != first["minute"] or doubled["rows"] == 0
    if doubled["minute"] == first["minute"]:
        assert list(UsageSample.objects.order_by("pk").values_list("pk", "cpu_request")) == rows_after_first
    minute = first["minute"][:16] + "Z"
    query = {"window": f"{minute},{_plus_minute(minute)}", "step": "window", "aggregate": "workload,tier,cluster"}
    _, report = queries.project_cost(project.name, query, actor=user)
    got = {
        tuple(a.properties[d] for d in ("workload", "tier", "cluster")): (a.billable.cpu, a.billable.memory)
        for a in report.totals().values()
    }
    reserved_cpu = sum(cpu for (w, tier, c), (cpu, _m) in truth.items() if tier == "reserved")
    reserved_mem = sum(m for (w, tier, c), (_c, m) in truth.items() if tier == "reserved")
    expected = {key: (Fraction(cpu * 60), Fraction(mem * 60)) for key, (cpu, mem) in truth.items()}
    unused = (Fraction(max(8000 - reserved_cpu, 0) * 60), Fraction(max((32 << 30) - reserved_mem, 0) * 60))
    if any(unused):
        expected[("__unused_reservation__", "reserved", "")] = unused
    assert got == expected
    assert {c for (_w, _t, c) in truth} == {"member-a", "member-b"}  # the PinApp spans both zones


def _count_running(namespace: str) -> int:
    return sum(
        1 for cluster in Cluster.objects.filter(role="member")
        for p in client.CoreV1Api(runtime.api_for(cluster)).list_namespaced_pod(namespace).items
        if p.status.phase == "Running"
    )  # fmt: skip


def _plus_minute(minute: str) -> str:
    from datetime import datetime, timedelta

    return (datetime.fromisoformat(minute.replace("Z", "+00:00")) + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%MZ")
