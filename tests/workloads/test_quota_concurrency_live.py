"""Quota under concurrent writes through the portal's services: 20 creates, scales and edits of one project's
PinApps at once, each of which fits its grant alone, against the real host and members with the federation
running. After every watch event on the host, what the admitted workloads hold (each counted at the spec of the
generation its admission records, as the watch delivered it) stays within the grant; each write either lands or is
refused with the numbers; once admission settles, the members run no more than is admitted."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connections
from kubernetes import client, watch

from base.errors import Conflict
from clusters import runtime
from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.federation.admission import claim_of
from pincompute.federation.propagation import spec_hash
from pincompute.grants import Allocation
from pincompute.labels import REPLICAS_ANNOTATION
from pincompute.runtime import load_profile
from pincompute.specs import parse
from tests.support.federation import condition
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.submission import pinapp
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads import host, services

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
    pytest.mark.timeout(300),
]
GRANT_CPU = 4000
CONTAINER = {"name": "app", "image": "registry.local/ads/app:1", "resources": {"requests": {"cpu": "350m"}}}


def app(name: str, replicas: int = 1, cpu: str = "350m") -> dict:
    container = {**CONTAINER, "resources": {"requests": {"cpu": cpu}}}
    return pinapp(name, replicas=replicas, tier="OnDemand", template={"containers": [container]})


def claim(namespace: str, spec: dict) -> Allocation:
    manifest = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "PinApp", "metadata": {"name": "x", "namespace": namespace}}
    return claim_of(parse({**manifest, "spec": spec}), datetime.now(UTC), profile=load_profile()).request


class AdmittedTotal:
    """The host's PinApps of one namespace as one watch delivers them (one kind: in resourceVersion order), and
    after every event what the admitted ones hold at the spec of their admitted generation."""

    def __init__(self, api: client.ApiClient, namespace: str) -> None:
        self.namespace, self.objects, self.specs = namespace, {}, {}
        self.peak, self.events, self.violations = 0, 0, []
        custom = client.CustomObjectsApi(api)
        listed = custom.list_namespaced_custom_object(GROUP, VERSION, namespace, "pinapps")
        self.watch = watch.Watch()
        self.stream = self.watch.stream(
            custom.list_namespaced_custom_object, GROUP, VERSION, namespace, "pinapps",
            resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=240,
        )  # fmt: skip
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for event in self.stream:
            self._handle(event["type"], event["object"])

    def _handle(self, type_: str, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        self.events += 1
        self.specs[(meta["name"], meta["generation"])] = obj["spec"]
        if type_ == "DELETED":
            self.objects.pop(meta["name"], None)
            return
        self.objects[meta["name"]] = obj
        held = self.held()
        self.peak = max(self.peak, held.cpu_milli)
        if held.cpu_milli > GRANT_CPU:
            self.violations.append(
                f"event {self.events} ({type_} {meta['name']}): admitted hold {held.describe()}: {self.admitted()}"
            )

    def held(self) -> Allocation:
        total = Allocation()
        for name, obj in list(self.objects.items()):
            if condition(obj, "Admitted").get("status") != "True":
                continue
            generation = obj["status"]["admission"]["generation"]
            spec = self.specs[(name, generation)]  # the watch delivered every version since the list
            assert spec_hash(spec) == obj["status"]["admission"]["specHash"]
            total = total + claim(self.namespace, spec)
        return total

    def admitted(self) -> str:
        """Each admitted PinApp: its admitted generation of its generation, and its replicas and CPU then."""
        rows = []
        for name, obj in sorted(self.objects.items()):
            if condition(obj, "Admitted").get("status") == "True":
                record = obj["status"]["admission"]
                spec = self.specs[(name, record["generation"])]
                cpu = spec["template"]["containers"][0]["resources"]["requests"]["cpu"]
                rows.append(f"{name} g{record['generation']}/{obj['metadata']['generation']} {spec['replicas']}x{cpu}")
        return ", ".join(rows)

    def settled(self) -> bool:
        def decided(obj: dict[str, Any]) -> bool:
            admitted = condition(obj, "Admitted")
            at = (obj.get("status") or {}).get("admission", {}).get("generation")
            pending = condition(obj, "ChangePending").get("status") == "True"
            return admitted.get("status") == "False" or at == obj["metadata"]["generation"] or pending

        return len(self.objects) == 17 and all(decided(o) for o in list(self.objects.values()))


def member_total(namespace: str) -> tuple[int, bool]:
    """CPU the members' shards run (replicas x one replica's claim), and whether every shard carries an admitted
    spec of its host object."""
    host = {o["metadata"]["name"]: o for o in runtime.host_cache().list("pinapps", namespace=namespace)}
    total, current = 0, True
    for cache in runtime.member_caches().values():
        for shard in cache.list("pinapps", namespace=namespace):
            name = shard["metadata"]["name"]
            replicas = int(shard["metadata"]["annotations"].get(REPLICAS_ANNOTATION) or 0)
            total += claim(namespace, {**shard["spec"], "replicas": 1}).cpu_milli * replicas
            recorded = ((host.get(name) or {}).get("status") or {}).get("admission") or {}
            current = current and spec_hash(shard["spec"]) == recorded.get("specHash")
    return total, current


@pytest.mark.usefixtures("operator")
def test_twenty_concurrent_writes_never_hold_more_than_the_grant(created, admin_user, user, cluster_api_clients):  # noqa: F811
    project = team_project("race", admin_user, user, grants={"ondemand": ("4", "8Gi", "0", "0")})
    one = claim(project.namespace, {**app("x")["spec"], "project": project.name}).cpu_milli
    assert one * 3 + 2 * one <= GRANT_CPU and one * 3 + one <= GRANT_CPU  # a scale to 3, or a create, fits alone
    observer = AdmittedTotal(cluster_api_clients["host"], project.namespace)
    for index in range(3):
        services.submit_workload(project, app(f"base-{index}"), actor=user)
        created.append(("PinApp", project.namespace, f"base-{index}"))
    wait_for(
        lambda: all(condition(o, "Admitted").get("status") == "True" for o in observer.objects.values())
        and len(observer.objects) == 3,
        60,
        what="the three PinApps admitted",
    )

    def write(step: tuple[str, int]) -> str:
        what, index = step
        try:
            if what == "scale":
                services.operate_workload(project, "PinApp", f"base-{index}", "scale", actor=user, replicas=3)
            elif what == "edit":
                services.submit_workload(project, app(f"base-{index}", cpu="450m"), actor=user)
            else:
                services.submit_workload(project, app(f"new-{index}"), actor=user)
            return "written"
        except (services.ExceedsGrant, Conflict) as refused:
            return type(refused).__name__
        finally:
            connections.close_all()

    steps = [("scale", i) for i in range(3)] + [("edit", i) for i in range(3)] + [("create", i) for i in range(14)]
    created.extend(("PinApp", project.namespace, f"new-{i}") for i in range(14))
    with ThreadPoolExecutor(len(steps)) as pool:
        outcomes = list(pool.map(write, steps))

    assert set(outcomes) <= {"written", "ExceedsGrant", "Conflict"} and "written" in outcomes
    wait_for(observer.settled, 90, what="admission decided for every write")
    assert observer.violations == []
    assert 0 < observer.peak <= GRANT_CPU
    running = wait_for(lambda: (t := member_total(project.namespace))[1] and t, 90, what="members on admitted specs")
    assert running[0] <= GRANT_CPU
    observer.watch.stop()


@pytest.mark.usefixtures("operator")
def test_a_scale_beyond_the_room_left_is_refused_with_the_numbers_and_writes_nothing(created, admin_user, user):  # noqa: F811
    project = team_project("grow", admin_user, user, grants={"ondemand": ("4", "8Gi", "0", "0")})
    for name, replicas in (("small", 1), ("big", 6)):
        services.submit_workload(project, app(name, replicas=replicas), actor=user)
        created.append(("PinApp", project.namespace, name))

    def admitted() -> bool:
        objs = [host.get("PinApp", project.namespace, n) for n in ("small", "big")]
        return all(condition(o, "Admitted").get("status") == "True" for o in objs)

    wait_for(admitted, 60, what="both admitted")
    before = host.get("PinApp", project.namespace, "small")

    with pytest.raises(services.ExceedsGrant) as refused:
        services.operate_workload(project, "PinApp", "small", "scale", actor=user, replicas=3)

    assert refused.value.status == 403 and refused.value.code == "quota_exceeded"
    (field,) = refused.value.fields
    assert field.path == "OnDemand.cpu"
    assert field.message == (
        "OnDemand cpu: it would hold 1500m (admitted: 500m); the project's other admitted workloads hold 3 of the "
        "grant of 4, so 1 is left"
    )
    after = host.get("PinApp", project.namespace, "small")
    assert after["metadata"]["generation"] == before["metadata"]["generation"]
    services.operate_workload(project, "PinApp", "small", "scale", actor=user, replicas=2)  # 1 CPU: fits


@pytest.mark.usefixtures("operator")
def test_a_scaler_edit_beyond_the_room_left_is_refused_with_the_numbers_and_writes_nothing(created, admin_user, user):  # noqa: F811
    project = team_project("hpa", admin_user, user, grants={"ondemand": ("4", "8Gi", "0", "0")})
    services.submit_workload(project, app("web", replicas=2), actor=user)  # 2 x 500m
    created.append(("PinApp", project.namespace, "web"))
    scaler = {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "PinScaler",
        "metadata": {"name": "web-hpa"},
        "spec": {"tier": "OnDemand", "targetRef": {"name": "web"}, "minReplicas": 1, "maxReplicas": 6},
    }
    services.submit_workload(project, scaler, actor=user)  # the HPAs may run 6 x 500m: fits
    created.append(("PinScaler", project.namespace, "web-hpa"))

    def admitted() -> dict[str, Any] | None:
        obj = host.get("PinScaler", project.namespace, "web-hpa")
        return obj if ((obj.get("status") or {}).get("admission") or {}).get("scaler") else None

    before = wait_for(admitted, 60, what="the scaler admitted")
    assert host.get("PinApp", project.namespace, "web")["status"]["admission"]["request"]["pods"] == 6

    with pytest.raises(services.ExceedsGrant) as refused:
        services.submit_workload(project, {**scaler, "spec": {**scaler["spec"], "maxReplicas": 10}}, actor=user)

    assert refused.value.status == 403 and refused.value.code == "quota_exceeded"
    assert str(refused.value).startswith(
        f"maxReplicas 10 of PinScaler web-hpa grows PinApp web's claim (its autoscaler's reach) beyond what project "
        f"{project.name}'s grant has room for now; nothing was changed"
    )
    (field,) = refused.value.fields
    assert field.path == "OnDemand.cpu"
    assert field.message == (
        "OnDemand cpu: it would hold 5 (admitted: 3); the project's other admitted workloads hold 0 of the grant of "
        "4, so 4 is left"
    )
    after = host.get("PinScaler", project.namespace, "web-hpa")
    assert after["metadata"]["generation"] == before["metadata"]["generation"]
    services.submit_workload(project, {**scaler, "spec": {**scaler["spec"], "maxReplicas": 8}}, actor=user)  # fits
