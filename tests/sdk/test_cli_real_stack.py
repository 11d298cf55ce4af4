# ruff: noqa: F811 - fixtures imported from other conftests are named as parameters
"""A workload's whole life through ``pincompute`` against the real stack: the portal's ASGI app under uvicorn (HTTP
and the websocket consumers), a personal API token, the registry's host and member apiservers with kwok, and the
federation operator as a subprocess. The CLI runs as its own process, as a user runs it: apply (twice: created, then
unchanged), get until Running with pods on both members, scale (the members' pods follow), get pods, logs of a pod,
exec ``echo hello``, restart-container (the operator restarts it in place), a stale ``--if-match`` (exit 4 naming both
versions), pause (the pods go), delete (the host object and every shard gone from the apiservers)."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client as k8s

from base.models import AuditEvent
from devtools.localcp.binaries import default_bin_dir
from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.kinds import KINDS
from tests.support.cli_process import cli_command, cli_environment, pods_by_member, running_pods
from tests.support.journey import project  # noqa: F401 - fixture, used by name
from tests.support.provisioning import eager_tasks, federation, pools, register  # noqa: F401
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads.examples import example

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]

PLURAL = KINDS["PinApp"].plural
MEMBERS = ("member-a", "member-b")


@pytest.fixture
def pincompute(asgi_portal, user):
    """``pincompute ARGS``: the CLI as a process (``python -m pinconsole_sdk.cli``) with the developer's token."""
    return cli_command(cli_environment(asgi_portal.url, user))


def custom_objects(api: k8s.ApiClient, namespace: str) -> list[str]:
    """PinApps in ``namespace`` as that apiserver holds them (not a cache)."""
    found = k8s.CustomObjectsApi(api).list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL)
    return sorted(item["metadata"]["name"] for item in found["items"])


def test_a_workload_lifecycle_through_the_cli_on_the_real_stack(
    operator, created, project, user, pincompute, cluster_api_clients, tmp_path: Path
):
    ns, name = project.namespace, f"cli-{uuid.uuid4().hex[:6]}"
    document: dict[str, Any] = example("PinApp", project=project.name)
    document["metadata"]["name"] = name
    manifest = tmp_path / "app.yaml"
    manifest.write_text(yaml.safe_dump(document, sort_keys=False))
    p = ("-n", project.name)

    assert pincompute("apply", "-f", str(manifest), *p) == (0, f"pinapp/{name} created\n", "")
    created.append(("PinApp", ns, name))
    assert pincompute("apply", "-f", str(manifest), *p) == (0, f"pinapp/{name} unchanged\n", "")

    def state() -> dict[str, Any]:
        code, out, err = pincompute("get", "pinapp", name, *p, "-o", "json")
        assert code == 0, err
        return json.loads(out)

    def running_with(replicas: int) -> dict[str, Any] | None:
        got = state()
        pods = running_pods(ns, name)
        spread = all(len(pods.get(m, [])) == replicas // 2 for m in MEMBERS)
        return got if got["status"]["state"] == "running" and got["status"]["ready"] == replicas and spread else None

    running = wait_for(lambda: running_with(2), 150, interval=1, what="Running with a pod on each member")
    assert sorted(s["cluster"] for s in running["shards"]) == list(MEMBERS)
    assert running["status"]["desired"] == 2 and running["spec"]["replicas"] == 2
    code, out, _ = pincompute("get", "pinapps", *p)
    assert code == 0 and out.splitlines()[1].split()[:6] == [project.name, "PinApp", name, "OnDemand", "running", "2/2"]

    stale = running["version"]
    assert pincompute("scale", "pinapp", name, "--replicas", "4", *p, "--if-match", stale) == (
        0,
        f"pinapp/{name} scaled\n",
        "",
    )
    scaled = wait_for(lambda: running_with(4), 150, interval=1, what="4 pods Running, 2 on each member")
    assert sorted(s["replicas"] for s in scaled["shards"]) == [2, 2] and scaled["version"] != stale

    code, out, err = pincompute("pause", "pinapp", name, *p, "--if-match", stale)  # the version before the scale
    assert code == 4 and out == "", err
    assert f"sent version {stale}, live version {scaled['version']}" in err, err

    code, out, err = pincompute("get", "pods", *p, "--workload", name, "-o", "json")
    listed = sorted((pod["cluster"], pod["name"]) for pod in json.loads(out)["items"])
    assert code == 0 and listed == sorted((m, pod) for m, names in running_pods(ns, name).items() for pod in names)
    code, out, _ = pincompute("get", "pods", *p, "--workload", name, "--cluster", "member-b")
    assert code == 0 and out.split()[:7] == ["CLUSTER", "NAME", "READY", "STATUS", "RESTARTS", "NODE", "WORKLOAD"]
    assert [row.split()[0] for row in out.splitlines()[1:]] == ["member-b", "member-b"]
    member, pods = listed[0][0], [pod for m, pod in listed if m == listed[0][0]]

    code, out, err = pincompute("logs", pods[0], *p, "--cluster", member, "--tail", "3")
    assert code == 0 and 1 <= len(out.splitlines()) <= 3, (code, out, err)
    container = next(c["name"] for c in document["spec"]["template"]["containers"])
    direct = (
        k8s.CoreV1Api(cluster_api_clients[member])
        .read_namespaced_pod_log(pods[0], ns, container=container, tail_lines=200, _preload_content=False)
        .data.decode()
    )  # raw: the client's preloaded str is the repr of the bytes (kubernetes 36)
    assert set(out.splitlines()) <= set(direct.splitlines()), (out, direct[-500:])  # the pod's own log lines
    code, out, err = pincompute("exec", pods[0], *p, "--cluster", member, "--", "echo", "hello")
    assert (code, out) == (0, "hello\n"), err
    assert AuditEvent.objects.filter(action="shell.open", actor=user, target_name=f"{ns}/{pods[0]}/web").exists()

    code, out, err = pincompute("restart-container", "pinapp", name, "-c", "web", "--pod", pods[0], *p)
    assert (code, out) == (0, f"pinapp/{name} container web restarted in pod {pods[0]}\n"), err

    def restarted() -> bool:  # in place: the same pod, its container's restart count up by one
        pod = k8s.CoreV1Api(cluster_api_clients[member]).read_namespaced_pod(pods[0], ns)
        return any(s.name == "web" and s.restart_count == 1 for s in pod.status.container_statuses or [])

    wait_for(restarted, 120, interval=1, what=f"container web of {pods[0]} restarted on {member}")

    assert pincompute("pause", "pinapp", name, *p) == (0, f"pinapp/{name} paused\n", "")
    wait_for(lambda: state()["status"]["state"] == "paused", 90, interval=1, what="the workload paused")
    wait_for(lambda: not any(pods_by_member(ns, name).values()), 90, interval=1, what="every pod gone")

    assert pincompute("delete", "pinapp", name, *p) == (0, f"pinapp/{name} deleted\n", "")

    def gone() -> bool:
        code, _, err = pincompute("get", "pinapp", name, *p)
        return code == 3 and "not_found" in err

    wait_for(gone, 120, interval=1, what="get answering not found (exit 3)")
    held = {cluster: custom_objects(api, ns) for cluster, api in cluster_api_clients.items()}
    assert held == {cluster: [] for cluster in cluster_api_clients}, held  # no orphan on the host or a member
    assert pincompute("delete", "pinapp", name, *p)[0] == 3


def test_kubectl_then_the_cli_then_the_portal_each_change_only_what_they_say(
    operator, created, project, user, pincompute, cluster_api_clients, local_control_plane, tmp_path: Path
):
    """As a GitOps tool and a person share a workload: applied with kubectl on the host, applied again unchanged with
    the CLI (no new generation, revision or pod, kubectl's last-applied annotation kept, no portal defaults added),
    then one field edited in the portal (one new generation and revision, still nothing else added)."""
    ns, name = project.namespace, f"gitops-{uuid.uuid4().hex[:6]}"
    document: dict[str, Any] = example("PinApp", project=project.name)
    document["metadata"].update(name=name, namespace=ns)
    manifest = tmp_path / "app.yaml"
    manifest.write_text(yaml.safe_dump(document, sort_keys=False))
    host_api = cluster_api_clients["host"]
    kubectl = [str(default_bin_dir() / "kubectl"), "--kubeconfig", str(local_control_plane.kubeconfig_path)]

    applied = subprocess.run(
        [*kubectl, "--context", "host", "apply", "-f", str(manifest)], capture_output=True, text=True
    )
    assert applied.returncode == 0, applied.stderr
    created.append(("PinApp", ns, name))

    def live() -> dict[str, Any]:
        return k8s.CustomObjectsApi(host_api).get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, name)

    def revisions() -> int:
        return len(k8s.AppsV1Api(host_api).list_namespaced_controller_revision(ns).items)

    wait_for(lambda: all(len(running_pods(ns, name).get(m, [])) == 1 for m in MEMBERS), 150, what="pods Running")
    before, pods = live(), running_pods(ns, name)
    wait_for(lambda: revisions() == 1, 30, what="the accepted spec's revision")

    assert pincompute("apply", "-f", str(manifest), "-p", project.name) == (0, f"pinapp/{name} unchanged\n", "")
    again = live()
    assert again["metadata"]["generation"] == before["metadata"]["generation"]
    assert again["spec"] == before["spec"] and "costCenter" not in again["spec"] and "team" not in again["spec"]
    assert "kubectl.kubernetes.io/last-applied-configuration" in again["metadata"]["annotations"]
    assert revisions() == 1 and running_pods(ns, name) == pods

    edited = yaml.safe_load(manifest.read_text())
    edited["spec"]["template"]["containers"][0]["env"] = [{"name": "LOG_LEVEL", "value": "debug"}]
    (tmp_path / "edited.yaml").write_text(yaml.safe_dump(edited, sort_keys=False))
    code, out, err = pincompute("apply", "-f", str(tmp_path / "edited.yaml"), "-p", project.name)
    assert (code, out) == (0, f"pinapp/{name} configured\n"), err
    after = live()
    assert after["metadata"]["generation"] == before["metadata"]["generation"] + 1
    assert "costCenter" not in after["spec"] and "team" not in after["spec"]
    assert "kubectl.kubernetes.io/last-applied-configuration" in after["metadata"]["annotations"]
    wait_for(lambda: revisions() == 2, 60, what="the edit's revision")
