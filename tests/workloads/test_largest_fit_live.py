# ruff: noqa: F811 - fixtures imported from other modules are named as parameters
"""The largest request that fits now, proven on the real stack (host and member apiservers, kwok nodes, the
kube-scheduler, the federation operator, the portal's watch caches): member-a is left one schedulable node with a
filler on it, so its OnDemand pool has hundreds of cpu free but one node only a few; the portal's answer, submitted,
is admitted, placed and Running; one millicore more is admitted and placed but its pod stays Pending, and the preview
said why beforehand ("... free in OnDemand on member-a but at most ... on one node")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client

from clusters import runtime
from devtools.waiting import wait_for
from pincompute.federation.propagation import placement_request
from pincompute.largest_fit import LargestFit
from pincompute.quantity import Resources, format_cpu
from pincompute.specs import parse
from pincompute.tiers import Tier
from projects.fit_now import fit_now
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.submission import APP, pinapp
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads import services, submission
from workloads.preview import preview

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


@pytest.fixture
def one_node(federation, cluster_api_clients) -> Iterator[str]:
    """Every kwok node of member-a cordoned but one general node (its name), uncordoned afterwards; the portal's
    node cache has seen it before the operator starts (requested before ``operator``)."""
    core = client.CoreV1Api(cluster_api_clients["member-a"])
    nodes = core.list_node(label_selector="type=kwok").items
    keep = next(n.metadata.name for n in nodes if n.metadata.labels.get("pincompute.io/hardware-family") == "general")
    cordoned = [n.metadata.name for n in nodes if n.metadata.name != keep and not n.spec.unschedulable]
    for name in cordoned:
        core.patch_node(name, {"spec": {"unschedulable": True}})
    cache = runtime.member_caches()["member-a"]
    assert cache.wait_synced(60)
    schedulable = lambda: {n["metadata"]["name"] for n in cache.list("nodes") if not n["spec"].get("unschedulable")}  # noqa: E731
    try:
        wait_for(lambda: schedulable() == {keep}, 60, interval=0.5, what="member-a cordoned but one node")
        yield keep
    finally:
        for name in cordoned:
            core.patch_node(name, {"spec": {"unschedulable": None}})


@pytest.fixture
def project(admin_user: Any, user: Any) -> Any:
    return team_project("fit", admin_user, user, grants={"ondemand": ("250", "1000Gi", "0", "0")})


def document(name: str, cpu_milli: int) -> dict[str, Any]:
    """A PinApp of one replica on member-a's zone whose container asks ``cpu_milli``."""
    app = {**APP, "resources": {"requests": {"cpu": format_cpu(cpu_milli), "memory": "64Mi"}}}
    return pinapp(name, replicas=1, zones=["local-1a"], tier="OnDemand", template={"containers": [app]})


def pod_request(project: Any, doc: dict[str, Any]) -> Resources:
    """One replica's request as admission and placement count it (the runtime profile's containers included)."""
    request = placement_request(parse(submission.complete(project, doc)), submission.profile())
    assert request is not None
    return request.request_per_replica


def member_a(project: Any) -> LargestFit | None:
    """member-a's row once the portal's host cache holds its MemberCluster (it watches the kind once served)."""
    return next((c for c in fit_now(project).tier(Tier.ONDEMAND).clusters if c.cluster == "member-a"), None)


def pods_of(project: Any, workload: str) -> list[dict[str, Any]]:
    pods = runtime.member_caches()["member-a"].list("pods", namespace=project.namespace)
    return [p for p in pods if p["metadata"]["name"].startswith(f"{workload}-")]


def running_on(project: Any, workload: str, node: str) -> bool:
    return any(
        p["status"].get("phase") == "Running" and p["spec"].get("nodeName") == node for p in pods_of(project, workload)
    )


def unschedulable(project: Any, workload: str) -> bool:
    conditions = [c for p in pods_of(project, workload) for c in p["status"].get("conditions") or ()]
    return any(c.get("type") == "PodScheduled" and c.get("reason") == "Unschedulable" for c in conditions)


def admitted(project: Any, workload: str) -> bool:
    obj = runtime.host_cache().get("pinapps", project.namespace, workload)
    conditions = ((obj or {}).get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Admitted" and c.get("status") == "True" for c in conditions)


def submit(project: Any, user: Any, created: list, name: str, cpu_milli: int) -> None:
    services.submit_workload(project, document(name, cpu_milli), actor=user)
    created.append(("PinApp", project.namespace, name))


def test_the_largest_fitting_request_runs_and_one_millicore_more_waits(one_node, operator, created, project, user):
    submit(project, user, created, "filler", 20_000)
    wait_for(lambda: running_on(project, "filler", one_node), 180, interval=1, what="the filler Running")
    fit = wait_for(
        lambda: (f := member_a(project)) is not None and (f.largest["cpu"] or 10**9) <= 12_000 and f,
        120,
        interval=1,
        what="member-a's largest fit counting the filler",
    )
    largest = fit.largest["cpu"]
    assert largest is not None and fit.bounds["cpu"][0].startswith("at most ")  # one node binds, not the grant
    assert fit.pool_free.cpu_milli > 300_000  # the pool has hundreds of cpu free: the totals mislead
    share = pod_request(project, document("probe", 10_000)).cpu_milli - 10_000  # the platform's containers beside
    exact, over = document("at-fit", largest - share), document("over", largest - share + 1)
    asked = pod_request(project, exact)  # memory a little above a PinPod's platform minimum, far below any bound
    assert asked.cpu_milli == largest and asked.gpu == 0 and asked.memory_bytes < fit.node_free.memory_bytes // 100

    shown = preview(project, over, actor=user)
    assert shown.quota.verdict == "fits" and [s.cluster for s in shown.placement.shards] == ["member-a"]
    [later] = shown.room.later
    assert f"free in OnDemand on member-a but at most {format_cpu(largest)} on one node" in later, later
    submit(project, user, created, "over", largest - share + 1)
    wait_for(lambda: admitted(project, "over") and unschedulable(project, "over"), 180, interval=1, what="over waits")

    assert preview(project, exact, actor=user).room.later == []
    submit(project, user, created, "at-fit", largest - share)
    wait_for(lambda: running_on(project, "at-fit", one_node), 180, interval=1, what="at-fit Running")
    assert admitted(project, "at-fit") and unschedulable(project, "over")  # one millicore more still waits
