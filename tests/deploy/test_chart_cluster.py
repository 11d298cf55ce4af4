"""The chart on the local clusters: its manifests server-side applied (production-like values) until every pod runs on
a kwok node, and each ServiceAccount's rights checked with ``kubectl auth can-i --as``: what the component needs is
allowed, a list of what it must never do is refused.

The host-mode release is applied to the host (its rights checked there, with the host's CRDs installed by the
operator's install-crds) and, for the pods, to member-a (the host runs no scheduler and no node); the member-mode
release to member-b (the members' CRDs installed). Each release has a namespace of its own, removed afterwards."""

from __future__ import annotations

import copy
import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from devtools.localcp import LocalControlPlane
from devtools.waiting import wait_for
from tests.support.chart_release import Release, new_release
from tests.support.helm import CHART, PRODUCTION_VALUES

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def _pods(release: Release) -> list[dict[str, object]]:
    return json.loads(release.run("get", "pods", "-n", release.namespace, "-o", "json").stdout)["items"]


def test_every_pod_runs_on_a_kwok_node(kwok_release: Release) -> None:
    # Applied from `helm template`, the hooks' Jobs run too: migrate (pre-install) and webhook-cleanup (pre-delete).
    expected = {"web": 4, "worker": 3, "beat": 1, "operator": 2, "migrate": 1, "webhook-cleanup": 1}

    def running() -> dict[str, int] | None:
        counts: dict[str, int] = {}
        for pod in _pods(kwok_release):
            if pod["status"].get("phase") in ("Running", "Succeeded"):  # type: ignore[union-attr]
                component = pod["metadata"]["labels"]["app.kubernetes.io/component"]  # type: ignore[index]
                counts[component] = counts.get(component, 0) + 1
        return counts if counts == expected else None

    wait_for(running, timeout=180, interval=1, what=f"pods of {kwok_release.name} running: {expected}")
    nodes = json.loads(kwok_release.run("get", "nodes", "-o", "json").stdout)["items"]
    kwok = {n["metadata"]["name"] for n in nodes if n["metadata"]["annotations"].get("kwok.x-k8s.io/node") == "fake"}
    pods = _pods(kwok_release)
    assert {p["spec"]["nodeName"] for p in pods} <= kwok  # type: ignore[index]
    operators = [p for p in pods if p["metadata"]["labels"]["app.kubernetes.io/component"] == "operator"]  # type: ignore[index]
    assert len({p["spec"]["nodeName"] for p in operators}) == 2  # type: ignore[index]  # anti-affinity: two nodes
    for pod in pods:  # the apiserver kept the restricted security context (not defaulted away)
        assert pod["spec"]["securityContext"]["runAsNonRoot"] is True  # type: ignore[index]
        for container in pod["spec"]["containers"]:  # type: ignore[index]
            assert container["securityContext"]["readOnlyRootFilesystem"] is True


def test_member_tokens_are_issued(member_release: Release) -> None:
    """The member-mode Secrets get their tokens (what the host's kubeconfigs for this member are built from)."""

    def tokens() -> list[str] | None:
        out = member_release.run("get", "secrets", "-n", member_release.namespace, "-o", "json").stdout
        found = [s["data"]["token"] for s in json.loads(out)["items"] if (s.get("data") or {}).get("token")]
        return found if len(found) == 2 else None

    wait_for(tokens, timeout=60, interval=0.5, what="the portal's and the operator's member tokens")


WORKLOAD = "pinapps.pincompute.io"
HOST_RIGHTS: dict[str, tuple[list[str], list[str]]] = {
    # component: (must be allowed, must be refused)
    "web": (
        [
            f"create {WORKLOAD}",
            f"update {WORKLOAD}",
            "delete pinterestjobsets.pincompute.io",
            f"watch {WORKLOAD} -A",
            "create projectquotas.pincompute.io",
            "patch memberclusters.pincompute.io",
            "delete memberclusters.pincompute.io",
            "create namespaces",
            "delete namespaces",
            "list controllerrevisions.apps -A",
            "watch events -A",
            "create rolebindings",  # provisioning: the rights on the project's Secrets/ConfigMaps, per namespace
            "bind clusterroles/{fullname}-federation-project-configs",
            "bind clusterroles/{fullname}-portal-project-configs",
        ],
        [
            "get secrets -A",
            "list secrets",
            "delete nodes",
            "create pods",
            "create pods --subresource=exec",
            f"patch {WORKLOAD} --subresource=status",
            "delete projectquotas.pincompute.io",
            "create clusterrolebindings",
            "escalate clusterroles",
            "bind clusterroles/cluster-admin",
            "bind clusterroles/pincompute-project-owner",
            "patch clusterroles/{fullname}-federation-project-configs",
            "bind clusterroles/pincompute-federation-project-configs",  # another release's
            "list configmaps -A",
        ],
    ),
    "operator": (
        [
            f"patch {WORKLOAD}",
            f"patch {WORKLOAD} --subresource=status",
            "list memberclusters.pincompute.io",
            "patch memberclusters.pincompute.io --subresource=status",
            "watch projectquotas.pincompute.io -A",
            "create controllerrevisions.apps",
            "delete controllerrevisions.apps",
            "create events",
            "create leases.coordination.k8s.io -n {ns}",
            "get leases.coordination.k8s.io/pincompute-operator -n {ns}",
            "update leases.coordination.k8s.io/pincompute-operator -n {ns}",
        ],
        [
            "watch secrets -A",  # a project's Secrets and ConfigMaps: in its namespace only, bound by provisioning
            "get secrets",
            "get secrets -n kube-system",
            "list configmaps -A",
            "create secrets -n default",
            "patch secrets -A",
            "delete configmaps -A",
            f"create {WORKLOAD}",
            f"delete {WORKLOAD}",
            "patch memberclusters.pincompute.io",
            "patch projectquotas.pincompute.io",
            "update leases.coordination.k8s.io/other -n {ns}",
            "create leases.coordination.k8s.io -n kube-system",
            "create namespaces",
            "create pods",
            "delete nodes",
            "create clusterrolebindings",
            "escalate clusterroles",
        ],
    ),
    "beat": ([], ["list pinapps.pincompute.io -A", "get configmaps -n {ns}", "get secrets -n {ns}", "list namespaces"]),
    "migrate": ([], ["list namespaces", "get secrets -n {ns}", "create pods -n {ns}", "list pods -A"]),
}
HOST_RIGHTS["worker"] = HOST_RIGHTS["web"]  # provisioning and the registry sync run in the worker
# (Kubeflow's pytorchjobs/tfjobs are granted too, but kubectl can only ask about a kind the cluster serves.)
MEMBER_RIGHTS: dict[str, tuple[list[str], list[str]]] = {
    "portal": (
        [
            "list pods -A",
            "watch nodes",
            "watch events -A",
            "list deployments.apps -A",
            "watch jobs.batch -A",
            f"watch {WORKLOAD} -A",
            "create namespaces",
            "patch namespaces",
            "delete namespaces",
            "patch resourcequotas",
            "create limitranges",
            "create rolebindings",
            "patch networkpolicies.networking.k8s.io",
            "bind clusterroles/pincompute-project-owner",
            "bind clusterroles/pincompute-project-viewer",
            "bind clusterroles/{fullname}-federation-config-copies",  # the operator's copies, per project namespace
            "patch clusterroles/pincompute-project-developer",  # provisioning re-applies the tenants' rules
            "escalate clusterroles/pincompute-project-viewer",
            "get pods --subresource=log",
            "create pods --subresource=exec",
        ],
        [
            "delete nodes",
            "patch nodes",
            "get secrets -A",
            "list secrets",
            "bind clusterroles/cluster-admin",
            "escalate clusterroles",
            "escalate clusterroles/cluster-admin",
            "patch clusterroles/admin",
            "create clusterrolebindings",
            f"create {WORKLOAD}",
            "delete pods",
            "create pods",
            "update configmaps",
            "create pods --subresource=attach",
            "delete resourcequotas",
            "bind clusterroles/{fullname}-federation-project-configs",
            "bind clusterroles/pincompute-federation-config-copies",  # another release's
        ],
    ),
    "operator": (
        [
            f"create {WORKLOAD}",
            f"delete {WORKLOAD}",
            f"patch {WORKLOAD} --subresource=status",
            "create deployments.apps",
            "delete daemonsets.apps",
            "create jobs.batch",
            "create cronjobs.batch",
            "create services",
            "create configmaps",
            "create persistentvolumeclaims",
            "patch pods",
            "delete pods",
            "create ingresses.networking.k8s.io",
            "create horizontalpodautoscalers.autoscaling",
            "create events",
            "watch events -A",
            "list nodes",
            "create pods --subresource=exec",  # a container restart in place: kill -TERM 1 in it
        ],
        [
            "list secrets",  # the federation's copies: in a project namespace only, bound by provisioning
            "create secrets",
            "delete secrets -n kube-system",
            "watch secrets -A",
            "update secrets",
            "create pods --subresource=attach",
            "get pods --subresource=log",
            "delete nodes",
            "patch nodes",
            "create namespaces",
            "delete namespaces",
            "create rolebindings",
            "create clusterrolebindings",
            "escalate clusterroles",
            "bind clusterroles/cluster-admin",
            "create resourcequotas",
            "create serviceaccounts --subresource=token",
        ],
    ),
}


def _check(release: Release, rights: tuple[list[str], list[str]], component: str) -> list[str]:
    allowed, refused = rights
    questions = [(q.format(ns=release.namespace, fullname=release.fullname), True) for q in allowed]
    questions += [(q.format(ns=release.namespace, fullname=release.fullname), False) for q in refused]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda q: release.can_i(component, q[0]), questions))
    return [
        f"{component}: can-i {question} -> {'yes' if got else 'no'}, expected {'yes' if want else 'no'}"
        for (question, want), got in zip(questions, answers, strict=True)
        if got != want
    ]


@pytest.mark.parametrize("component", sorted(HOST_RIGHTS))
def test_host_service_accounts_have_what_they_need_and_nothing_more(host_release: Release, component: str) -> None:
    assert _check(host_release, HOST_RIGHTS[component], component) == []


@pytest.mark.parametrize("component", sorted(MEMBER_RIGHTS))
def test_member_service_accounts_have_what_they_need_and_nothing_more(member_release: Release, component: str) -> None:
    assert _check(member_release, MEMBER_RIGHTS[component], component) == []


def _dry_run(release: Release, objects: list[dict[str, object]]) -> subprocess.CompletedProcess[str]:
    return release.run("apply", "--server-side", "--dry-run=server", "--validate=strict", "--force-conflicts",
                       "--field-manager=pinconsole-chart-test", "-n", release.namespace, "-f", "-",
                       stdin=yaml.safe_dump_all(objects), check=False)  # fmt: skip


def test_every_rendered_object_is_valid_for_the_apiserver(
    local_control_plane: LocalControlPlane, helm: Path, crds: None
) -> None:
    """Everything the chart can render (the CRDs of crds/, every option on, production values) checked by the host's
    apiserver against its OpenAPI schemas, unknown fields refused (a server-side dry run: nothing is written). The
    ServiceMonitors are the one exception: their CRD is prometheus-operator's, not installed here."""
    release = new_release(local_control_plane, "host")
    on = ["--set", "serviceMonitor.enabled=true,networkPolicy.enabled=true"]
    try:
        args = [str(helm), "template", release.name, str(CHART), "--include-crds", "-n", release.namespace]
        done = subprocess.run([*args, "-f", str(PRODUCTION_VALUES), *on], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        objects = [o for o in yaml.safe_load_all(done.stdout) if o]
        checked = [o for o in objects if o["kind"] != "ServiceMonitor"]
        assert {o["kind"] for o in objects} - {o["kind"] for o in checked} == {"ServiceMonitor"}
        assert {"CustomResourceDefinition", "NetworkPolicy", "Deployment", "Job"} <= {o["kind"] for o in checked}

        valid = _dry_run(release, checked)
        assert valid.returncode == 0, valid.stderr
        assert valid.stdout.count("(server dry run)") == len(checked)

        broken = copy.deepcopy(next(o for o in checked if o["kind"] == "Deployment"))
        broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["periodSecond"] = 5
        refused = _dry_run(release, [broken])
        assert refused.returncode != 0
        assert "readinessProbe.periodSecond: field not declared in schema" in refused.stderr
    finally:
        release.delete()


def test_helm_install_refuses_a_bad_value_and_prints_the_notes(local_control_plane: LocalControlPlane, helm: Path):
    """`helm install` (a dry run against the host) validates the values before anything else, naming the field; a
    good install prints NOTES.txt: where the portal is and what to do next."""
    install = [str(helm), "install", "pc", str(CHART), "--dry-run=server", "-n", "default", "--kube-context", "host",
               "--kubeconfig", str(local_control_plane.kubeconfig_path), "-f", str(PRODUCTION_VALUES)]  # fmt: skip

    bad = subprocess.run([*install, "--set", "web.replicas=abc"], capture_output=True, text=True, timeout=120)
    good = subprocess.run(install, capture_output=True, text=True, timeout=120)

    assert bad.returncode != 0 and "at '/web/replicas': got string, want integer" in bad.stderr
    assert good.returncode == 0, good.stderr
    notes = good.stdout.split("NOTES:", 1)[1]
    assert "https://portal.example.com/oidc/callback/" in notes
    assert "exec deploy/pc-pinconsole-web -- python manage.py import_clusters" in notes
    assert "WARNING" not in notes  # OIDC is configured in the production values
