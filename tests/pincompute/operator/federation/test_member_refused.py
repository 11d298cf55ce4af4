"""A workload whose pods a member refuses (its namespace enforces a stricter Pod Security level than the host
expected) says so on the host object, with the member's message, and holds no quota until its spec changes.

Run alone: .venv/bin/pytest tests/pincompute/operator/federation/test_member_refused.py -p no:django \
    -p no:cacheprovider -o addopts="" -p tests.harness.localcp
"""

from __future__ import annotations

import pytest
from kubernetes import client

from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.kinds import KINDS
from pincompute.tenancy import PodSecurity, pod_security_labels
from tests.support.federation import MEMBERS, condition, custom, get

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]
APP = {"name": "app", "image": "registry.local/search/web:1.0", "resources": {"requests": {"cpu": "300m"}}}
RESTRICTED_POD = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
RESTRICTED_CONTAINER = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def pinapp(name: str, namespace: str, *, restricted: bool) -> dict:
    container = {**APP, "securityContext": RESTRICTED_CONTAINER} if restricted else APP
    template = {"containers": [container], **({"securityContext": RESTRICTED_POD} if restricted else {})}
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "PinApp",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "project": namespace,
            "team": "team",
            "tier": "OnDemand",
            "replicas": 2,
            "zones": ["local-1a", "local-1b"],
            "template": template,
        },
    }


def with_condition(host: client.ApiClient, namespace: str, name: str, type_: str, status: str) -> dict | None:
    obj = get(host, "PinApp", namespace, name)
    return obj if condition(obj, type_).get("status") == status else None


def test_a_member_refusing_the_pods_shows_on_the_host_and_frees_the_quota(federation, federation_clusters, project):
    # given a project granted 1 CPU, whose member namespaces enforce restricted while the host expected baseline
    ns = project(cpu="1", memory="4Gi")
    for member in MEMBERS:
        labels = {"metadata": {"labels": pod_security_labels(PodSecurity.RESTRICTED)}}
        client.CoreV1Api(federation_clusters[member]).patch_namespace(ns, labels)
    host = federation_clusters["host"]
    plural = KINDS["PinApp"].plural
    # when a baseline PinApp taking 900m of it is admitted, then a restricted one of the same size comes
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, plural, pinapp("loose", ns, restricted=False))
    wait_for(lambda: with_condition(host, ns, "loose", "Admitted", "True"), 60, what="loose admitted")
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, plural, pinapp("strict", ns, restricted=True))

    # then the members' refusal is on the host object, with their message, for this generation
    loose = wait_for(lambda: with_condition(host, ns, "loose", "MemberRefused", "True"), 120, what="MemberRefused")
    refused = condition(loose, "MemberRefused")
    assert refused["reason"] == "PodSecurity"
    assert refused["message"].startswith("member member-")
    assert 'violates PodSecurity "restricted:latest"' in refused["message"]
    assert refused["observedGeneration"] == loose["metadata"]["generation"]
    # and it holds no quota: Admitted=False until its spec changes, its shards gone, the other one admitted and running
    loose = wait_for(lambda: with_condition(host, ns, "loose", "Admitted", "False"), 60, what="loose released")
    assert condition(loose, "Admitted")["reason"] == "MemberRefused"
    assert condition(loose, "MemberRefused")["status"] == "True"  # kept once its shards are pruned
    wait_for(lambda: with_condition(host, ns, "strict", "Ready", "True"), 120, what="strict Ready")
    wait_for(
        lambda: all(get(federation_clusters[m], "PinApp", ns, "loose") is None for m in MEMBERS),
        60,
        what="loose's shards pruned",
    )
