"""What the host admits, whoever wrote the object (kubectl here): a change of an admitted workload that does not fit
its project's grant waits while the members keep the admitted generation; a workload naming another project than its
namespace's, or with a spec the library refuses, is never admitted and says why with the field paths."""

from __future__ import annotations

import threading
import time

import pytest
from kubernetes import client, watch
from urllib3.exceptions import ProtocolError

from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.labels import REPLICAS_ANNOTATION
from tests.support.federation import MEMBERS, condition, custom, get

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]
POD = {"name": "app", "image": "registry.local/search/web:1.0", "resources": {"requests": {"cpu": "350m"}}}


def manifest(kind: str, name: str, namespace: str, **spec) -> dict:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"project": namespace, "team": "team", "tier": "OnDemand", **spec},
    }


def shards(clusters, namespace: str, name: str) -> list[dict]:
    return [s for m in MEMBERS if (s := get(clusters[m], "PinApp", namespace, name))]


def running_replicas(clusters, namespace: str, name: str) -> tuple[int, set[int]]:
    """(replicas the shards' placement annotations add up to, the spec.replicas each shard carries)."""
    found = shards(clusters, namespace, name)
    total = sum(int(s["metadata"]["annotations"].get(REPLICAS_ANNOTATION) or 0) for s in found)
    return total, {int(s["spec"]["replicas"]) for s in found}


def scale(host, namespace: str, name: str, replicas: int) -> None:  # what `kubectl patch` sends
    custom(host).patch_namespaced_custom_object(
        GROUP, VERSION, namespace, "pinapps", name, {"spec": {"replicas": replicas}}
    )


def test_a_kubectl_patch_beyond_the_grant_waits_and_the_members_keep_the_admitted_generation(
    federation, federation_clusters, project
):
    ns = project(cpu="2", memory="8Gi")  # each replica: 350m + the runtime's 150m = 500m
    host = federation_clusters["host"]
    body = manifest("PinApp", "web", ns, replicas=2, zones=["local-1a", "local-1b"], template={"containers": [POD]})
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", body)
    wait_for(lambda: running_replicas(federation_clusters, ns, "web") == (2, {2}), 60, what="2 replicas on members")

    scale(host, ns, "web", 6)  # 3 CPUs: beyond the grant of 2

    obj = wait_for(
        lambda: (o := get(host, "PinApp", ns, "web")) and condition(o, "ChangePending").get("status") == "True" and o,
        30,
        what="the change waiting",
    )
    pending = condition(obj, "ChangePending")
    assert pending["reason"] == "QuotaExceeded"
    assert "requested 3 + 0 held by admitted workloads exceeds the project's grant of 2 by 1" in pending["message"]
    assert obj["status"]["admission"]["generation"] == 1 and obj["metadata"]["generation"] == 2
    assert condition(obj, "Admitted")["status"] == "True" and condition(obj, "Admitted")["observedGeneration"] == 1
    assert obj["status"]["admission"]["request"]["cpu"] == "1"
    for _ in range(10):  # the members keep running the admitted generation
        assert running_replicas(federation_clusters, ns, "web") == (2, {2})
        time.sleep(0.2)

    scale(host, ns, "web", 4)  # 2 CPUs: fits

    wait_for(lambda: running_replicas(federation_clusters, ns, "web") == (4, {4}), 60, what="4 replicas on members")
    obj = get(host, "PinApp", ns, "web")
    assert obj["status"]["admission"]["generation"] == 3 and not condition(obj, "ChangePending")


class MemberAutoscalers:
    """The HorizontalPodAutoscalers of one namespace on every member, as their watches deliver them: the total
    ``maxReplicas`` now, and the largest total ever seen."""

    def __init__(self, clusters, namespace: str) -> None:
        self.current: dict[tuple[str, str], int] = {}
        self.peak = 0
        self.watches = []
        for member in MEMBERS:
            listing = client.AutoscalingV2Api(clusters[member]).list_namespaced_horizontal_pod_autoscaler
            self.watches.append(watch.Watch())
            stream = self.watches[-1].stream(listing, namespace, timeout_seconds=240)
            threading.Thread(target=self._run, args=(member, stream), daemon=True).start()

    def _run(self, member: str, stream) -> None:
        try:
            for event in stream:
                key = (member, event["object"].metadata.name)
                if event["type"] == "DELETED":
                    self.current.pop(key, None)
                else:
                    self.current[key] = event["object"].spec.max_replicas
                self.peak = max(self.peak, self.total())
        except ProtocolError:
            return  # the namespace or the apiserver went away at the end of the test

    def total(self) -> int:
        return sum(self.current.values())

    def stop(self) -> None:
        for stream in self.watches:
            stream.stop()


def test_a_scaler_raised_beyond_the_grant_waits_and_the_members_autoscalers_keep_the_admitted_max(
    federation, federation_clusters, project, request
):
    ns = project(cpu="2", memory="8Gi")  # each replica: 500m, so room for 4
    host = federation_clusters["host"]
    body = manifest("PinApp", "web", ns, replicas=2, zones=["local-1a", "local-1b"], template={"containers": [POD]})
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", body)
    scaler = manifest("PinScaler", "web-hpa", ns, targetRef={"name": "web"}, minReplicas=1, maxReplicas=3)
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinscalers", scaler)
    hpas = MemberAutoscalers(federation_clusters, ns)
    request.addfinalizer(hpas.stop)
    wait_for(lambda: hpas.total() == 3, 90, what="the members' HPAs at maxReplicas 3 in all")
    held = get(host, "PinApp", ns, "web")["status"]["admission"]["request"]
    assert (held["cpu"], held["pods"]) == ("1500m", 3)  # 2 replicas, but the HPAs may run 3

    patch = {"spec": {"maxReplicas": 6}}  # 3 CPUs: beyond the grant of 2
    custom(host).patch_namespaced_custom_object(GROUP, VERSION, ns, "pinscalers", "web-hpa", patch)

    obj = wait_for(
        lambda: (o := get(host, "PinScaler", ns, "web-hpa")) and condition(o, "ChangePending") and o,
        30,
        what="the raise waiting",
    )
    pending = condition(obj, "ChangePending")
    assert pending["reason"] == "QuotaExceeded"
    assert "maxReplicas 6 would let PinApp web's autoscaler run it beyond what it holds" in pending["message"]
    assert "requested 3 + 0 held by admitted workloads exceeds the project's grant of 2 by 1" in pending["message"]
    assert obj["status"]["admission"]["scaler"] == {"target": "web", "maxReplicas": 3}
    assert get(host, "PinApp", ns, "web")["status"]["admission"]["request"]["pods"] == 3

    patch = {"spec": {"maxReplicas": 4}}  # 2 CPUs: fits
    custom(host).patch_namespaced_custom_object(GROUP, VERSION, ns, "pinscalers", "web-hpa", patch)

    wait_for(lambda: hpas.total() == 4, 60, what="the members' HPAs at maxReplicas 4 in all")
    assert hpas.peak == 4  # the members never had the raise that waited
    assert get(host, "PinApp", ns, "web")["status"]["admission"]["request"]["pods"] == 4
    assert not condition(get(host, "PinScaler", ns, "web-hpa"), "ChangePending")


def test_a_workload_naming_another_project_is_never_admitted_and_the_condition_names_both(
    federation, federation_clusters, project
):
    ns = project()
    host = federation_clusters["host"]
    body = manifest("PinPod", "stray", ns, containers=[POD], restartPolicy="Always")
    body["spec"]["project"] = "someone-else"
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinpods", body)

    obj = wait_for(lambda: (o := get(host, "PinPod", ns, "stray")) and condition(o, "Admitted") and o, 30)

    admitted = condition(obj, "Admitted")
    assert (admitted["status"], admitted["reason"]) == ("False", "ProjectMismatch")
    assert (
        f"spec.project: names project 'someone-else', but namespace {ns} belongs to project '{ns}'"
        in (admitted["message"])
    )
    time.sleep(1)
    assert all(get(federation_clusters[m], "PinPod", ns, "stray") is None for m in MEMBERS)


def test_a_spec_the_library_refuses_is_never_admitted_with_the_field_path_in_the_condition(
    federation, federation_clusters, project
):
    ns = project()
    host = federation_clusters["host"]
    body = manifest("PinScaler", "bounds", ns, targetRef={"name": "web"}, minReplicas=5, maxReplicas=2)
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinscalers", body)  # the CRD's types allow it

    obj = wait_for(lambda: (o := get(host, "PinScaler", ns, "bounds")) and condition(o, "Admitted") and o, 30)

    admitted = condition(obj, "Admitted")
    assert (admitted["status"], admitted["reason"]) == ("False", "InvalidSpec")
    assert "spec.minReplicas: 5 is more than maxReplicas (2)" in admitted["message"]
