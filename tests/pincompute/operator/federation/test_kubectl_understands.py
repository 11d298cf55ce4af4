"""What tools nobody here wrote read from the workload objects, against the real host and members: `kubectl explain`
shows the registry's descriptions, an HPA on the host (the host's own kube-controller-manager) can target a PinApp
through its scale subresource, and `kubectl get` on a member counts the shard's own replicas.

Run alone: .venv/bin/pytest tests/pincompute/operator/federation/test_kubectl_understands.py -n 0
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from kubernetes import client

from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.labels import workload_selector
from tests.support.federation import MEMBERS, condition, get, kubectl

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]
UTILIZATION = {"type": "Utilization", "averageUtilization": 50}
APP = {"name": "app", "image": "registry.local/search/web:1.0", "resources": {"requests": {"cpu": "100m"}}}


def pinapp(name: str, namespace: str, replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "PinApp",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "project": namespace,
            "team": "team",
            "replicas": replicas,
            "zones": ["local-1a", "local-1b"],
            "template": {"containers": [APP]},
        },
    }


def test_kubectl_explain_reads_the_registrys_descriptions(federation_clusters, forwarded_kubeconfig):
    kubeconfig, _ = forwarded_kubeconfig

    kind, spec, surge, conditions = (
        flat(kubectl(kubeconfig, "host", "explain", path))
        for path in ("pinapps", "pinapps.spec", "pinapps.spec.rollout.maxSurge", "pinscalers.status.conditions")
    )

    assert "A long-running application: replicas of a PinPod spread over zones" in kind
    assert "zones <[]string> -required- The zones to run in; the replicas are spread over a member" in spec
    assert "replicas <integer> How many pods to run; default 1. The scale subresource" in spec
    # kubectl names a type only from `type`, which an int-or-string may not set in a CRD: <Object>, as for every CRD
    assert "FIELD: maxSurge <Object> DESCRIPTION: Replicas above the count while rolling: 1 or 25%." in surge
    assert "lastTransitionTime <string> When status last changed." in conditions


def flat(text: str) -> str:
    """`kubectl explain`'s text with its wrapping and indentation undone."""
    return " ".join(text.split())


def test_an_hpa_on_the_host_can_target_a_pinapp_and_a_member_shows_its_shards_own_replicas(
    federation, federation_clusters, forwarded_kubeconfig, project
):
    kubeconfig, _ = forwarded_kubeconfig
    ns = project()
    host = federation_clusters["host"]
    kubectl(kubeconfig, "host", "apply", "-f", "-", input=yaml.safe_dump(pinapp("web", ns, 4)))
    placed = wait_for(
        lambda: (obj := get(host, "PinApp", ns, "web")) and (obj.get("status") or {}).get("replicas") == 4 and obj,
        90,
        what="the host PinApp's shards report 4 replicas",
    )
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": ns},
        "spec": {
            "scaleTargetRef": {"apiVersion": f"{GROUP}/{VERSION}", "kind": "PinApp", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 6,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": UTILIZATION}}],
        },
    }
    kubectl(kubeconfig, "host", "apply", "-f", "-", input=yaml.safe_dump(hpa))

    scale = kubectl(kubeconfig, "host", "get", "--raw", f"/apis/{GROUP}/{VERSION}/namespaces/{ns}/pinapps/web/scale")
    judged = wait_for(lambda: hpa_conditions(host, ns, "web").get("ScalingActive"), 90, what="the HPA judged")
    able = hpa_conditions(host, ns, "web")["AbleToScale"]
    host_row = table_row(kubectl(kubeconfig, "host", "get", "pinapp", "web", "-n", ns))
    member_rows = [table_row(kubectl(kubeconfig, member, "get", "pinapp", "web", "-n", ns)) for member in MEMBERS]

    assert able["status"] == "True", able
    # no metrics server on the local host: the HPA stops at reading CPU, past the target's selector it needs first
    assert judged["reason"] != "InvalidSelector", judged
    assert judged["reason"] == "FailedGetResourceMetric", judged
    assert placed["status"]["selector"] == workload_selector("PinApp", "web")
    assert yaml.safe_load(scale)["status"] == {"replicas": 4, "selector": workload_selector("PinApp", "web")}
    assert host_row["REPLICAS"] == "4"
    assert [row["REPLICAS"] for row in member_rows] == ["2", "2"]
    assert condition(placed, "Admitted")["status"] == "True"


def hpa_conditions(api: client.ApiClient, namespace: str, name: str) -> dict[str, dict[str, Any]]:
    found = client.AutoscalingV2Api(api).read_namespaced_horizontal_pod_autoscaler(name, namespace)
    return {
        c.type: {"status": c.status, "reason": c.reason, "message": c.message} for c in found.status.conditions or []
    }


def table_row(output: str) -> dict[str, str]:
    """`kubectl get`'s one row by its header (columns are separated by two spaces or more)."""
    header, row = output.strip().splitlines()[:2]
    starts = [i for i, ch in enumerate(header) if ch != " " and (i == 0 or header[i - 1] == " ")]
    bounds = list(zip(starts, [*starts[1:], None], strict=True))
    return {header[a:b].strip(): row[a:b].strip() for a, b in bounds}
