"""A project's Secrets and ConfigMaps reach exactly the members whose shards reference them, leave with the last
shard, and a change rolls the pods that use them (unless the reference opts out); the value never reaches the log."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from kubernetes import client

from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.configs import manifest as config_manifest
from pincompute.labels import CONFIGS_HASH_ANNOTATION
from tests.support.federation import MEMBERS, custom

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]
VALUE = "s3cr3t-Zq8vX1"
NEW_VALUE = "n3w-s3cr3t-Pw4"
COPY = "pincompute.io/config-copy=true"


def app(namespace: str, name: str, env_ref: dict[str, Any], *, volume: bool, zones: list[str]) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "app",
        "image": "registry.local/search/web:1.0",
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
        "env": [{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": env_ref}}],
    }
    template: dict[str, Any] = {"containers": [container]}
    if volume:
        container["volumeMounts"] = [{"name": "conf", "mountPath": "/etc/app"}]
        template["volumes"] = [{"name": "conf", "configMap": {"name": "app-conf"}}]
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "PinApp",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "project": namespace,
            "team": "team",
            "tier": "OnDemand",
            "replicas": 2,
            "zones": zones,
            "template": template,
        },
    }


def copies(api: client.ApiClient, namespace: str) -> dict[tuple[str, str], dict[str, str]]:
    core = client.CoreV1Api(api)
    found = {
        ("Secret", s.metadata.name): s.data or {}
        for s in core.list_namespaced_secret(namespace, label_selector=COPY).items
    }
    found |= {
        ("ConfigMap", c.metadata.name): c.data or {}
        for c in core.list_namespaced_config_map(namespace, label_selector=COPY).items
    }
    return found


def template_hashes(api: client.ApiClient, namespace: str, workload: str) -> list[str | None]:
    deployments = client.AppsV1Api(api).list_namespaced_deployment(
        namespace, label_selector=f"pincompute.io/workload={workload}"
    )
    return sorted(
        (d.spec.template.metadata.annotations or {}).get(CONFIGS_HASH_ANNOTATION) or "" for d in deployments.items
    )


def set_secret(host: client.ApiClient, namespace: str, value: str, version: int) -> None:
    body = config_manifest(
        "Secret",
        project=namespace,
        namespace=namespace,
        name="db",
        data={"password": value},
        version=version,
        actor="alice",
    )
    core = client.CoreV1Api(host)
    if version == 1:
        core.create_namespaced_secret(namespace, body)
    else:
        core.replace_namespaced_secret("db", namespace, body)


def test_referenced_objects_follow_the_shards_and_a_change_rolls_the_pods(federation, federation_clusters, project):
    ns = project()
    host = federation_clusters["host"]
    core = client.CoreV1Api(host)
    set_secret(host, ns, VALUE, 1)
    conf = config_manifest(
        "ConfigMap", project=ns, namespace=ns, name="app-conf", data={"app.ini": "a=1"}, version=1, actor="alice"
    )
    core.create_namespaced_config_map(ns, conf)
    unused = config_manifest(
        "Secret", project=ns, namespace=ns, name="unused", data={"k": "v"}, version=1, actor="alice"
    )
    core.create_namespaced_secret(ns, unused)
    web = app(ns, "web", {"name": "db", "key": "password"}, volume=True, zones=["local-1a", "local-1b"])
    quiet = app(ns, "quiet", {"name": "db", "key": "password", "rollOnChange": False}, volume=False, zones=["local-1a"])
    for body in (web, quiet):
        custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", body)

    encoded = base64.b64encode(VALUE.encode()).decode()
    expected = {("Secret", "db"): {"password": encoded}, ("ConfigMap", "app-conf"): {"app.ini": "a=1"}}
    for member in MEMBERS:
        wait_for(lambda m=member: copies(federation_clusters[m], ns) == expected, 90, what=f"copies on {member}")
        wait_for(lambda m=member: template_hashes(federation_clusters[m], ns, "web") not in ([], [""]), 90, what="hash")
    member_a = federation_clusters["member-a"]
    wait_for(lambda: template_hashes(member_a, ns, "quiet") == [""], 90, what="quiet's pod template")
    before = {m: template_hashes(federation_clusters[m], ns, "web") for m in MEMBERS}
    quiet_before = client.AppsV1Api(member_a).list_namespaced_deployment(
        ns, label_selector="pincompute.io/workload=quiet"
    )
    quiet_template = quiet_before.items[0].spec.template.to_dict()

    set_secret(host, ns, NEW_VALUE, 2)
    new = base64.b64encode(NEW_VALUE.encode()).decode()
    for member in MEMBERS:
        api = federation_clusters[member]
        wait_for(lambda a=api: copies(a, ns).get(("Secret", "db")) == {"password": new}, 90, what="new value copied")
        wait_for(lambda a=api, m=member: template_hashes(a, ns, "web") != before[m], 90, what="web's pods roll")
    quiet_after = client.AppsV1Api(member_a).list_namespaced_deployment(
        ns, label_selector="pincompute.io/workload=quiet"
    )
    assert quiet_after.items[0].spec.template.to_dict() == quiet_template  # opted out: not rolled

    # web leaves member-b (one zone only): member-b holds no shard any more, so no copy; member-a keeps both
    patch = {"spec": {"zones": ["local-1a"]}}
    custom(host).patch_namespaced_custom_object(GROUP, VERSION, ns, "pinapps", "web", patch)
    wait_for(lambda: copies(federation_clusters["member-b"], ns) == {}, 90, what="member-b's copies removed")
    assert set(copies(member_a, ns)) == {("Secret", "db"), ("ConfigMap", "app-conf")}

    log = federation.log_path.read_text(errors="replace")
    for secret in (VALUE, NEW_VALUE, encoded, new):
        assert secret not in log
