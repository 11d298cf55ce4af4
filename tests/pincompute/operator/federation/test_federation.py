"""Workloads persisted on the host are admitted, placed, sharded, propagated and aggregated back.

Run alone: .venv/bin/pytest tests/pincompute/operator/federation -p no:django -p no:cacheprovider -o addopts="" \
    -p tests.harness.localcp
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml
from kubernetes import client

from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.kinds import KINDS
from pincompute.tiers import Tier
from tests.support.federation import (
    MEMBERS,
    condition,
    custom,
    get,
    kubectl,
    listed,
    member_cluster,
)

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]
IMAGE = "registry.local/search/web:1.0"
APP = {"name": "app", "image": IMAGE, "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}
JOB = {"name": "worker", "image": "registry.local/batch/worker:1", "resources": {"requests": {"cpu": "100m"}}}


def manifest(kind: str, name: str, namespace: str, **spec) -> dict:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"project": namespace, "team": "team", "tier": "OnDemand", **spec},
    }


def pinapp(name: str, namespace: str, replicas: int = 4, image: str = IMAGE) -> dict:
    return manifest(
        "PinApp",
        name,
        namespace,
        replicas=replicas,
        zones=["local-1a", "local-1b"],
        template={"containers": [{**APP, "image": image}]},
    )


def running(api: client.ApiClient, namespace: str, workload: str = "") -> list[dict]:
    """Running pods of ``workload`` (every workload's when empty)."""
    selector = f"pincompute.io/workload={workload}" if workload else "pincompute.io/workload"
    pods = client.CoreV1Api(api).list_namespaced_pod(namespace, label_selector=selector)
    return [p for p in pods.items if p.status.phase == "Running"]


def host_ready(host: client.ApiClient, kind: str, namespace: str, name: str) -> dict | None:
    obj = get(host, kind, namespace, name)
    if obj and condition(obj, "Ready").get("status") == "True":
        return obj
    return None


def test_a_pinapp_applied_to_the_host_with_kubectl_runs_sharded_across_both_zones(
    federation, federation_clusters, forwarded_kubeconfig, project
):
    kubeconfig, _ = forwarded_kubeconfig
    ns = project()
    host = federation_clusters["host"]
    kubectl(kubeconfig, "host", "apply", "-f", "-", input=yaml.safe_dump(pinapp("web", ns)))

    obj = wait_for(lambda: host_ready(host, "PinApp", ns, "web"), 60, what="host PinApp Ready")

    status = obj["status"]
    assert condition(obj, "Admitted")["status"] == "True"
    assert condition(obj, "Scheduled")["status"] == "True"
    assert {(s["cluster"], s["zone"], s["replicas"]) for s in status["placement"]["clusters"]} == {
        ("member-a", "local-1a", 2),
        ("member-b", "local-1b", 2),
    }
    assert {row["cluster"]: row["readyReplicas"] for row in status["shards"]} == {"member-a": 2, "member-b": 2}
    assert status["readyReplicas"] == 4 and status["phase"] == "Running"
    assert status["currentRevision"].startswith("pinapp-web-")
    for member in MEMBERS:
        shard = get(federation_clusters[member], "PinApp", ns, "web")
        assert shard["metadata"]["labels"]["pincompute.io/federated"] == "true"
        assert shard["metadata"]["annotations"]["pincompute.io/cluster"] == member
        assert len(running(federation_clusters[member], ns, "web")) == 2
    assert not client.AppsV1Api(host).list_namespaced_deployment(ns).items  # never executed on the host


OTHER_KINDS = {
    "PinPod": ({"containers": [APP], "restartPolicy": "Always"}, {"Pod"}),
    "PinterestService": (
        {"replicas": 2, "containers": [APP], "ports": [{"name": "http", "port": 80, "targetPort": 8080}]},
        {"Deployment"},
    ),
    "PinterestJobSet": ({"shards": 2, "parallelism": 2, "containers": [JOB]}, {"Job"}),
    "PinterestCronJob": ({"schedule": "*/5 * * * *", "containers": [JOB]}, {"CronJob"}),
    "PinterestDaemon": ({"containers": [JOB]}, {"DaemonSet"}),
    "PinterestTrainingJob": ({"framework": "PyTorch", "workers": 2, "containers": [{**JOB, "name": "pytorch"}]}, set()),
}


def native_names(api: client.ApiClient, namespace: str, workload: str) -> set[str]:
    selector = f"pincompute.io/workload={workload}"
    found = set()
    for kind, fn in (
        ("Pod", client.CoreV1Api(api).list_namespaced_pod),
        ("Deployment", client.AppsV1Api(api).list_namespaced_deployment),
        ("DaemonSet", client.AppsV1Api(api).list_namespaced_daemon_set),
        ("Job", client.BatchV1Api(api).list_namespaced_job),
        ("CronJob", client.BatchV1Api(api).list_namespaced_cron_job),
    ):
        if fn(namespace, label_selector=selector).items:
            found.add(kind)
    return found


def test_every_other_kind_runs_on_the_member_the_federation_chose(federation, federation_clusters, project):
    ns = project()
    host = federation_clusters["host"]
    for kind, (spec, _) in OTHER_KINDS.items():
        custom(host).create_namespaced_custom_object(
            GROUP, VERSION, ns, KINDS[kind].plural, manifest(kind, f"k-{kind.lower()[-8:]}", ns, **spec)
        )
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", pinapp("scaled", ns, replicas=2))
    scaler = manifest("PinScaler", "scaler", ns, targetRef={"name": "scaled"}, minReplicas=2, maxReplicas=4)
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinscalers", scaler)

    for kind, (_, natives) in OTHER_KINDS.items():
        name = f"k-{kind.lower()[-8:]}"
        obj = wait_for(
            lambda kind=kind, name=name: (o := get(host, kind, ns, name))
            and (o.get("status") or {}).get("shards")
            and o,
            60,
            what=f"{kind} placed and reported",
        )
        chosen = [row["cluster"] for row in obj["status"]["placement"]["clusters"]]
        assert chosen and set(chosen) <= set(MEMBERS), obj["status"]
        if kind == "PinterestDaemon":
            assert set(chosen) == set(MEMBERS)  # a daemon runs on every member
        else:
            assert len(chosen) == 1
        # The placement (and its shard rows) is recorded before the shards are applied: wait for them.
        wait_for(
            lambda kind=kind, name=name, chosen=chosen: all(
                (get(federation_clusters[m], kind, ns, name) is not None) == (m in chosen) for m in MEMBERS
            ),
            30,
            what=f"{kind}'s shards exactly on {chosen}",
        )
        for member in chosen:
            wait_for(
                lambda member=member, name=name, natives=natives: natives
                <= native_names(federation_clusters[member], ns, name),
                60,
                what=f"{kind} native objects on {member}",
            )
    app = wait_for(lambda: host_ready(host, "PinApp", ns, "scaled"), 60, what="scaled PinApp Ready")
    target_clusters = {row["cluster"] for row in app["status"]["placement"]["clusters"]}
    wait_for(
        lambda: all(get(federation_clusters[m], "PinScaler", ns, "scaler") for m in target_clusters),
        60,
        what="the PinScaler follows its PinApp to every cluster",
    )


def admitted_names(host: client.ApiClient, namespace: str) -> tuple[list[str], list[dict]]:
    items = listed(host, "PinPod", namespace)
    admitted = [o["metadata"]["name"] for o in items if condition(o, "Admitted").get("status") == "True"]
    waiting = [o for o in items if condition(o, "Admitted").get("reason") == "QuotaExceeded"]
    return admitted, waiting


def test_twenty_concurrent_workloads_never_exceed_the_grant_and_the_rest_wait_until_room_frees(
    federation, federation_clusters, project
):
    # Each PinPod asks 350m of CPU + the runtime's 150m = 500m; the grant of 2 CPUs fits four of them.
    ns = project(cpu="2", memory="64Gi")
    host = federation_clusters["host"]
    pod = {**APP, "resources": {"requests": {"cpu": "350m", "memory": "128Mi"}}}

    def create(index: int) -> None:
        body = manifest("PinPod", f"p{index:02d}", ns, containers=[pod], restartPolicy="Always")
        custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinpods", body)

    with ThreadPoolExecutor(20) as pool:
        list(pool.map(create, range(20)))

    def decided():
        admitted, waiting = admitted_names(host, ns)
        return (admitted, waiting) if len(admitted) + len(waiting) == 20 else None

    admitted, waiting = wait_for(decided, 60, what="an admission decision for all 20")
    assert len(admitted) == 4
    message = waiting[0]["status"]["conditions"][0]["message"]
    assert "OnDemand cpu: requested 500m + 2 held by admitted workloads exceeds the project's grant of 2" in message
    for _ in range(10):  # it stays that way
        assert len(admitted_names(host, ns)[0]) <= 4
        time.sleep(0.1)
    running_pods = wait_for(
        lambda: (n := sum(len(running(federation_clusters[m], ns)) for m in MEMBERS)) == 4 and n,
        60,
        what="the four admitted pods running",
    )
    assert running_pods == 4

    oldest_waiting = min(waiting, key=lambda o: (o["metadata"]["creationTimestamp"], o["metadata"]["uid"]))
    custom(host).delete_namespaced_custom_object(GROUP, VERSION, ns, "pinpods", admitted[0])
    now_admitted = wait_for(
        lambda: (names := admitted_names(host, ns)[0]) and admitted[0] not in names and len(names) == 4 and names,
        60,
        what="a waiting workload admitted once one is deleted",
    )
    newcomer = set(now_admitted) - set(admitted)
    assert len(newcomer) == 1
    created = {o["metadata"]["name"]: o["metadata"]["creationTimestamp"] for o in listed(host, "PinPod", ns)}
    assert created[newcomer.pop()] == created[oldest_waiting["metadata"]["name"]]  # first come, first served


def shard_image(api: client.ApiClient, namespace: str, name: str) -> str:
    shard = get(api, "PinApp", namespace, name) or {}
    containers = ((shard.get("spec") or {}).get("template") or {}).get("containers") or [{}]
    return str(containers[0].get("image"))


def test_a_pinapp_image_edit_rolls_out_zone_by_zone(federation, federation_clusters, project):
    ns = project()
    host = federation_clusters["host"]
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", pinapp("roll", ns))
    wait_for(lambda: host_ready(host, "PinApp", ns, "roll"), 60, what="PinApp Ready")
    new = "registry.local/search/web:2.0"
    body = {"spec": {"template": {"containers": [{**APP, "image": new}]}}}
    custom(host).patch_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", "roll", body)

    timeline = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        a = shard_image(federation_clusters["member-a"], ns, "roll")
        b = shard_image(federation_clusters["member-b"], ns, "roll")
        timeline.append((a, b))
        if a == b == new:
            break
        time.sleep(0.05)
    assert timeline[-1] == (new, new), timeline[-5:]
    assert (IMAGE, new) not in timeline  # zone local-1b never goes first
    assert (new, IMAGE) in timeline  # local-1a rolled while local-1b kept its template
    obj = wait_for(lambda: host_ready(host, "PinApp", ns, "roll"), 60, what="PinApp Ready after the rollout")
    revisions = client.AppsV1Api(host).list_namespaced_controller_revision(ns).items
    assert len(revisions) == 2 and obj["status"]["currentRevision"] in {r.metadata.name for r in revisions}


def test_a_stopped_member_apiserver_is_unknown_since_when_and_converges_after_restart(
    federation, federation_clusters, forwarded_kubeconfig, project
):
    _, forwarder = forwarded_kubeconfig
    ns = project()
    host = federation_clusters["host"]
    body = pinapp("split", ns)
    body["spec"]["failover"] = {"enabled": False}  # the placement stays (test_failover_live.py moves it)
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", body)
    wait_for(lambda: host_ready(host, "PinApp", ns, "split"), 60, what="PinApp Ready")

    forwarder.stop()
    try:

        def lost():
            obj = get(host, "PinApp", ns, "split")
            rows = {r["cluster"]: r for r in obj["status"]["shards"]}
            return rows if rows["member-b"]["state"] == "Unknown" else None

        rows = wait_for(lost, 30, what="member-b's shard Unknown")
        assert rows["member-b"]["unreachableSince"] and "member unreachable since" in rows["member-b"]["message"]
        assert rows["member-a"]["state"] == "Ready" and rows["member-a"]["readyReplicas"] == 2
        obj = get(host, "PinApp", ns, "split")
        assert condition(obj, "Ready")["status"] == "Unknown"
        assert len(running(federation_clusters["member-a"], ns, "split")) == 2  # the other keeps running
        assert [r["cluster"] for r in obj["status"]["placement"]["clusters"]] == ["member-a", "member-b"]
        since = rows["member-b"]["unreachableSince"]
        time.sleep(3)
        assert get(host, "PinApp", ns, "split")["status"]["shards"][1]["unreachableSince"] == since
    finally:
        forwarder.start()
    obj = wait_for(lambda: host_ready(host, "PinApp", ns, "split"), 60, what="converged after the restart")
    assert {r["cluster"]: r["readyReplicas"] for r in obj["status"]["shards"]} == {"member-a": 2, "member-b": 2}


def test_deleting_on_the_host_leaves_nothing_on_any_member(federation, federation_clusters, project):
    ns = project()
    host = federation_clusters["host"]
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", pinapp("gone", ns))
    daemon = manifest("PinterestDaemon", "agent", ns, containers=[JOB])
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinterestdaemons", daemon)
    wait_for(lambda: host_ready(host, "PinApp", ns, "gone"), 60, what="PinApp Ready")
    wait_for(lambda: all(running(federation_clusters[m], ns, "agent") for m in MEMBERS), 60, what="daemon pods")

    custom(host).delete_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", "gone")
    custom(host).delete_namespaced_custom_object(GROUP, VERSION, ns, "pinterestdaemons", "agent")

    wait_for(lambda: get(host, "PinApp", ns, "gone") is None, 60, what="the host object gone")
    wait_for(lambda: get(host, "PinterestDaemon", ns, "agent") is None, 60, what="the host daemon gone")
    for member in MEMBERS:
        api = federation_clusters[member]
        assert get(api, "PinApp", ns, "gone") is None and get(api, "PinterestDaemon", ns, "agent") is None
        wait_for(lambda api=api: not native_names(api, ns, "gone") and not native_names(api, ns, "agent"), 60)


def test_operations_set_on_the_host_reach_every_shard(federation, federation_clusters, project):
    ns = project()
    host = federation_clusters["host"]
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", pinapp("ops", ns))
    wait_for(lambda: host_ready(host, "PinApp", ns, "ops"), 60, what="PinApp Ready")
    placed = [r["cluster"] for r in get(host, "PinApp", ns, "ops")["status"]["placement"]["clusters"]]

    custom(host).patch_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", "ops", {"spec": {"replicas": 6}})
    obj = wait_for(
        lambda: (o := host_ready(host, "PinApp", ns, "ops")) and o["status"]["readyReplicas"] == 6 and o,
        60,
        what="scaled to 6 across both shards",
    )
    assert {r["cluster"]: r["replicas"] for r in obj["status"]["placement"]["clusters"]} == {m: 3 for m in MEMBERS}
    assert [r["cluster"] for r in obj["status"]["placement"]["clusters"]] == placed  # an edit moves nothing

    stop = {"spec": {"operations": {"stopped": True}}}
    custom(host).patch_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", "ops", stop)
    for member in MEMBERS:
        api = federation_clusters[member]
        wait_for(lambda api=api: get(api, "PinApp", ns, "ops")["spec"].get("operations"), 30, what="stop")
        wait_for(lambda api=api: not running(api, ns, "ops"), 60, what=f"no pods left on {member}")
    wait_for(lambda: get(host, "PinApp", ns, "ops")["status"].get("phase") == "Stopped", 30, what="phase Stopped")


def test_a_removed_member_cluster_moves_its_shard_and_an_edit_does_not(federation, federation_clusters, project):
    ns = project()
    host = federation_clusters["host"]
    body = manifest("PinPod", "mover", ns, containers=[APP], restartPolicy="Always")
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinpods", body)
    obj = wait_for(lambda: host_ready(host, "PinPod", ns, "mover"), 60, what="PinPod Ready")
    (first,) = [r["cluster"] for r in obj["status"]["placement"]["clusters"]]
    other = next(m for m in MEMBERS if m != first)

    edit = {"spec": {"containers": [{**APP, "image": "registry.local/search/web:3.0"}]}}
    custom(host).patch_namespaced_custom_object(GROUP, VERSION, ns, "pinpods", "mover", edit)
    wait_for(
        lambda: get(federation_clusters[first], "PinPod", ns, "mover")["spec"]["containers"][0]["image"].endswith(
            "3.0"
        ),
        30,
        what="the edit propagated in place",
    )
    assert [r["cluster"] for r in get(host, "PinPod", ns, "mover")["status"]["placement"]["clusters"]] == [first]

    saved = member_cluster(host, first)
    custom(host).delete_cluster_custom_object(GROUP, VERSION, "memberclusters", first)
    try:
        moved = wait_for(
            lambda: (o := host_ready(host, "PinPod", ns, "mover"))
            and [r["cluster"] for r in o["status"]["placement"]["clusters"]] == [other]
            and o,
            120,
            what=f"the shard moved from the removed {first} to {other}",
        )
        assert moved["status"]["shards"][0]["cluster"] == other
        wait_for(lambda: get(federation_clusters[first], "PinPod", ns, "mover") is None, 30, what="old shard pruned")
    finally:
        saved["metadata"] = {"name": first, "labels": saved["metadata"].get("labels") or {}}
        saved.pop("status", None)
        custom(host).create_cluster_custom_object(GROUP, VERSION, "memberclusters", saved)


def test_a_workload_outside_any_project_namespace_waits_and_says_why(federation, federation_clusters, project):
    ns = project()
    host = federation_clusters["host"]
    custom(host).delete_namespaced_custom_object(GROUP, VERSION, ns, "projectquotas", ns)
    body = manifest("PinPod", "stray", ns, containers=[APP], restartPolicy="Always")
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinpods", body)

    obj = wait_for(lambda: (o := get(host, "PinPod", ns, "stray")) and condition(o, "Admitted") and o, 30)

    assert condition(obj, "Admitted")["reason"] == "NoProjectQuota"
    assert "has no ProjectQuota" in condition(obj, "Admitted")["message"]
    time.sleep(1)
    assert all(get(federation_clusters[m], "PinPod", ns, "stray") is None for m in MEMBERS)


def test_a_shrunk_preemptible_grant_reclaims_the_newest_and_removes_their_shards(
    federation, federation_clusters, project
):
    ns = project(cpu="2", memory="8Gi", tier=Tier.PREEMPTIBLE)
    host = federation_clusters["host"]
    pod = {**APP, "resources": {"requests": {"cpu": "350m", "memory": "128Mi"}}}  # 500m with the runtime
    for index in range(4):
        body = manifest("PinPod", f"pre{index}", ns, containers=[pod], restartPolicy="Always", tier="Preemptible")
        custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinpods", body)
        time.sleep(1.1)  # distinct creation times: the queue order is the creation order
    wait_for(lambda: all(host_ready(host, "PinPod", ns, f"pre{i}") for i in range(4)), 60, what="all four running")

    shrink = {"spec": {"tiers": {"Preemptible": {"cpu": "1"}}}}
    custom(host).patch_namespaced_custom_object(GROUP, VERSION, ns, "projectquotas", ns, shrink)

    def reclaimed():
        states = {o["metadata"]["name"]: condition(o, "Admitted") for o in listed(host, "PinPod", ns)}
        return states if len([c for c in states.values() if c.get("reason") == "Reclaimed"]) == 2 else None

    states = wait_for(reclaimed, 60, what="reclaim")
    assert {n for n, c in states.items() if c["status"] == "True"} == {"pre0", "pre1"}  # the oldest stay
    assert {n for n, c in states.items() if c.get("reason") == "Reclaimed"} == {"pre2", "pre3"}
    for name in ("pre2", "pre3"):
        wait_for(
            lambda name=name: all(get(federation_clusters[m], "PinPod", ns, name) is None for m in MEMBERS),
            60,
            what=f"{name}'s shard removed",
        )
    assert get(host, "PinPod", ns, "pre3")["status"]["phase"] == "Queued"
