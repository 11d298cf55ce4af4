"""The chart on a real node: ``helm install`` puts every pod of the release on a kubelet (containerd, runc, CNI) that
joined the local host cluster (tests/harness/realnode.py), from the project image imported into containerd, and a
user goes through the portal's Service as through an ingress: signs in through dex's login form (the web pods redeem
the code at dex), opens the project page and creates an API token on the tokens page with that browser session; with
the token, a workload of the project the worker pod provisioned is placed on the members by the operator pods, and
a shell and a log stream go over the web pods' websockets. Then the operator's leader pod is killed: the standby
takes the Lease and places the next workload. The time from ``helm install`` to the portal answering is printed.
Everything the node started is gone afterwards, also when a test fails."""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from django.conf import settings
from django.db.migrations.recorder import MigrationRecorder
from kubernetes import client as k8s

from clusters import services as cluster_services
from devtools.devstack import sync_member_clusters
from devtools.localcp import LocalControlPlane
from devtools.localcp.dex import DexServer
from devtools.localcp.nodes import api_client
from devtools.localcp.procs import start_ticks
from devtools.waiting import wait_for
from pincompute.labels import WORKLOAD_LABEL
from projects.models import ClusterProvisioning
from tests.deploy import realnode_release as rr
from tests.deploy.portal_streams import LogFollow, shell_echo
from tests.harness.containerd import pause_image, processes_mentioning
from tests.harness.image import BuiltImage
from tests.harness.podman import Podman
from tests.harness.realnode import NODE_LABEL, NODE_NAME, RealNode
from tests.support import oidc_browser
from tests.support.provisioning import federation, pools, register, subprocess_database_url, team_project  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]
PINAPP = """
apiVersion: pincompute.io/v1
kind: PinApp
metadata: {name: NAME}
spec:
  tier: OnDemand
  replicas: 1
  zones: [local-1a]
  template:
    containers:
    - name: app
      image: registry.local/app:1
      resources: {requests: {cpu: "1", memory: 1Gi}}
"""


@contextmanager
def real_node(cp: LocalControlPlane, podman: Podman, images: list[str]) -> Iterator[RealNode]:
    """A started node with ``images`` imported; stopped whatever happens, and nothing of it may be left."""
    pause = pause_image(podman)
    node = RealNode(
        Path(f"/tmp/realnode-{uuid.uuid4().hex[:8]}"), cp.cluster("host"), cp.pki, cp.kubeconfig_path, pause
    )
    node.dir.mkdir()
    try:
        node.start()
        for image in (pause, *images):
            node.containerd.import_image(podman, image)
        yield node
    finally:
        left = node.stop()
        assert left == [], f"the real node left: {left}"
        shutil.rmtree(node.dir)


@pytest.fixture
def node_image(podman: Podman, project_image: BuiltImage) -> Iterator[str]:
    """The project image under a name of its own (an image id saves without one)."""
    ref = f"localhost/pinconsole-node:{project_image.image_id.removeprefix('sha256:')[:12]}"
    podman("tag", project_image.image_id, ref)
    yield ref
    podman("untag", project_image.image_id, ref, check=False)


def _ports(cp: LocalControlPlane) -> list[int]:
    """What the pods reach on the host: PostgreSQL, Redis and every local apiserver."""
    services = [subprocess_database_url(), os.environ["REDIS_URL"]]
    return [int(urlsplit(url).port or 0) for url in services] + [int(c.ports["apiserver"]) for c in cp.clusters]


def _install(
    release: rr.Release, net: rr.PodNetwork, cp: LocalControlPlane, dex: DexServer, image: str, tmp: Path
) -> float:
    """The Secrets and the IdP's CA an admin creates, then ``helm install``; returns the seconds until the portal
    answered."""
    release.kubectl("create", "namespace", release.namespace)
    database, redis = net.url(subprocess_database_url()), net.url(os.environ["REDIS_URL"])
    release.secret("pinconsole-settings", SECRET_KEY=settings.SECRET_KEY, DATABASE_URL=database, REDIS_URL=redis,
                   OIDC_RP_CLIENT_SECRET=rr.OIDC_SECRET)  # fmt: skip
    release.config_map(rr.OIDC_CA, **{"ca.crt": dex.ca_file.read_text()})
    members = rr.member_contexts(cp)
    contexts = [c.context for c in cp.clusters]
    release.secret("pinconsole-portal-kubeconfig", kubeconfig=net.kubeconfig(cp.kubeconfig_path, contexts))
    release.secret("pinconsole-operator-kubeconfig", kubeconfig=net.kubeconfig(cp.kubeconfig_path, members))
    values = tmp / "values.yaml"
    values.write_text(yaml.safe_dump(rr.values(image, members, dex.issuer)))
    started = time.monotonic()
    done = release.helm_run("install", values, "--timeout", "10m")
    assert done.returncode == 0, done.stderr
    url = release.web_url()
    wait_for(lambda: rr.answers(url), 600, interval=1, what="the portal answering through its Service")
    return rr.seconds_since(started)


def _upgrade(
    release: rr.Release,
    node: RealNode,
    podman: Podman,
    image: str,
    cp: LocalControlPlane,
    issuer: str,
    tmp: Path,
    stream: LogFollow,
) -> None:
    """``helm upgrade`` to an image with one more migration: the hook applies it, the web pods roll (every old one
    replaced, the new ones Ready), and the log stream open through an old one is cut."""
    upgraded, app, migration = rr.derived_image(podman, image, tmp)
    node.containerd.import_image(podman, upgraded)
    before = {p["metadata"]["name"] for p in release.pods("web")}
    values = tmp / "values-upgrade.yaml"
    values.write_text(yaml.safe_dump(rr.values(upgraded, rr.member_contexts(cp), issuer)))
    try:
        done = release.helm_run("upgrade", values, "--timeout", "10m")
        assert done.returncode == 0, done.stderr
        assert MigrationRecorder.Migration.objects.filter(app=app, name=migration).exists()

        def rolled() -> bool:
            pods = release.pods("web")
            ready = [p for p in pods if _ready(p) and p["spec"]["containers"][0]["image"] == upgraded]
            return len(ready) == 2 and not before & {p["metadata"]["name"] for p in pods}

        wait_for(rolled, 300, interval=2, what="the web pods rolled to the upgraded image")
        assert stream.closed.wait(120), "the log stream outlived the web pod it went through"
    finally:
        MigrationRecorder.Migration.objects.filter(app=app, name=migration).delete()  # the session's database
        podman("rmi", upgraded, check=False)


def _ready(pod: dict[str, Any]) -> bool:
    conditions = pod.get("status", {}).get("conditions") or []
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def _lease_holder(cp: LocalControlPlane, namespace: str) -> str | None:
    coordination = k8s.CoordinationV1Api(api_client(str(cp.kubeconfig_path), "host"))
    try:
        return coordination.read_namespaced_lease("pincompute-operator", namespace).spec.holder_identity or None
    except k8s.ApiException:
        return None


def test_the_chart_runs_on_a_real_node_and_a_user_goes_through_it(
    local_control_plane: LocalControlPlane,
    podman: Podman,
    node_image: str,
    helm: Path,
    federation: Any,  # noqa: F811 - the fixture: the registry's clusters with the platform installed
    pools: Any,  # noqa: F811 - the fixture: room in every member's pools
    admin_user: Any,
    django_user_model: Any,
    tmp_path: Path,
) -> None:
    cp = local_control_plane
    sync_member_clusters()
    for info in cp.clusters:  # the registry names the kubeconfig the chart mounts (what import_clusters records)
        cluster_services.register_cluster(name=info.name, region=info.region, zone=info.zone, role=info.role,
                                          api_server=info.server, kubeconfig_path=rr.CHART_KUBECONFIG,
                                          kube_context=info.context)  # fmt: skip
    suffix = uuid.uuid4().hex[:6]
    with (
        real_node(cp, podman, [node_image]) as node,
        rr.pod_network(_ports(cp)) as net,
        rr.node_dex(tmp_path / "dex") as dex,
    ):
        release = rr.Release(f"pc{suffix}", f"pinconsole-{suffix}", cp.kubeconfig_path, helm)
        try:
            seconds = _install(release, net, cp, dex, node_image, tmp_path)
            print(f"helm install -> the portal answering through its Service: {seconds} s")
            pods = [pod for c in ("web", "worker", "beat", "operator") for pod in release.pods(c)]
            assert {pod["spec"]["nodeName"] for pod in pods} == {NODE_NAME}
            url = release.web_url()
            http = rr.portal_client(url)

            browser = oidc_browser.browser(rr.PORTAL_ORIGIN, url, dex.ca_file)
            landed = oidc_browser.sign_in_through_dex(browser, rr.USER["email"], rr.USER["password"])
            assert landed.url.path == "/" and "Welcome" in landed.text
            user = django_user_model.objects.get(oidc_identities__issuer=dex.issuer)
            assert list(user.groups.values_list("name", flat=True)) == rr.USER["groups"]

            project = team_project("realnode", admin_user, user, grants={"ondemand": ("8", "16Gi", "0", "0")})
            wait_for(
                lambda: set(ClusterProvisioning.objects.filter(project=project).values_list("state", flat=True))
                == {"ready"},
                300, interval=2, what="the project provisioned by the worker pod",
            )  # fmt: skip
            detail = browser.get(f"/projects/{project.name}/")
            assert detail.status_code == 200 and detail.url.path == f"/projects/{project.name}/", detail.url
            assert project.name in detail.text
            created = oidc_browser.submit(browser, "/tokens/", {"name": "real-node", "days": "1", "scope": "write"})
            token = oidc_browser.page(created).by_id.get("new-token", "")
            assert created.status_code == 200 and token, created.text[:500]
            api = {"Authorization": f"Bearer {token}"}
            me = http.get("/api/v1/me/", headers=api)
            assert me.status_code == 200 and me.json()["username"] == user.username, me.text
            member, pod = _submit_and_find_pod(http, api, cp, project, "shop")
            assert "hello-42" in shell_echo(url, f"/ws/exec/{member}/{project.namespace}/{pod}/app/", token)
            logs = f"/ws/logs/{member}/{project.namespace}/{pod}/app/"
            stream = LogFollow(url, logs, token)
            wait_for(lambda: len(stream.lines) >= 3, 120, interval=0.5, what="log lines over the websocket")
            assert all(pod in line["text"] for line in stream.lines), stream.lines

            _upgrade(release, node, podman, node_image, cp, dex.issuer, tmp_path, stream)
            resumed = LogFollow(url, logs, token, after_seq=stream.last_seq)
            wait_for(lambda: len(resumed.lines) >= 2 or resumed.closed.is_set(), 240, interval=0.5,
                     what="the log stream resumed")  # fmt: skip
            assert len(resumed.lines) >= 2, f"the resumed stream ended after {resumed.lines}: {resumed.ended}"
            resumed.close()
            assert resumed.lines[0]["seq"] > stream.last_seq  # after the last line seen: no line twice
            assert all(pod in line["text"] for line in resumed.lines), resumed.lines

            leader = wait_for(lambda: _lease_holder(cp, release.namespace), 180, interval=1, what="an operator leader")
            release.kubectl("delete", "pod", leader, "--wait=false")
            standby = wait_for(
                lambda: (h if (h := _lease_holder(cp, release.namespace)) not in (None, leader) else None),
                180, interval=1, what="the standby operator taking the Lease",
            )  # fmt: skip
            assert standby in {p["metadata"]["name"] for p in release.pods("operator")}
            _submit_and_find_pod(http, api, cp, project, "shop-after-failover")
        finally:
            release.uninstall()
            wait_for(lambda: not node.containerd.tasks(), 180, interval=1, what="the release's pods stopped")


def _submit_and_find_pod(
    http: Any, api: dict[str, str], cp: LocalControlPlane, project: Any, name: str
) -> tuple[str, str]:
    """A PinApp through the API, placed by the operator pods; its Running pod on a member: (member, pod)."""
    workloads = f"/api/v1/projects/{project.name}/workloads/"
    body = PINAPP.replace("NAME", name)
    created = http.post(workloads, content=body, headers={**api, "Content-Type": "application/yaml"})
    assert created.status_code == 201, created.text

    def placed() -> list[str]:
        status = http.get(f"{workloads}PinApp/{name}/", headers=api).json()["status"]
        return list(status["clusters"]) if status["phase"] == "Running" else []

    member = wait_for(placed, 300, interval=2, what=f"the PinApp {name} placed and running")[0]
    core = k8s.CoreV1Api(api_client(str(cp.kubeconfig_path), member))

    def running_pod() -> str | None:
        pods = core.list_namespaced_pod(project.namespace, label_selector=f"{WORKLOAD_LABEL}={name}").items
        up = [p for p in pods if p.status.phase == "Running" and not p.metadata.deletion_timestamp]
        return up[0].metadata.name if up else None

    return member, str(wait_for(running_pod, 120, interval=1, what=f"a Running pod of {name} on {member}"))


def test_a_failing_test_leaves_nothing_of_the_node(local_control_plane: LocalControlPlane, podman: Podman) -> None:
    """A pod running on the node when the test fails: its containers, the shims, containerd, the kubelet, kube-proxy
    and the node's network, mounts, cgroups and iptables chains are all gone afterwards."""
    cp, pids, where = local_control_plane, [], Path()
    with pytest.raises(RuntimeError, match="the test failed"), real_node(cp, podman, []) as node:
        where = node.dir
        pod = {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"left-{uuid.uuid4().hex[:6]}"},
            "spec": {"nodeSelector": {NODE_LABEL: "true"}, "tolerations": [{"key": NODE_LABEL, "operator": "Exists"}],
                     "containers": [{"name": "c", "image": node.sandbox_image, "imagePullPolicy": "Never",
                                     "resources": {"limits": {"memory": "16Mi"}}}]},
        }  # fmt: skip
        node.core().create_namespaced_pod("default", pod)
        wait_for(lambda: len(node.containerd.tasks()) >= 2, 180, interval=1, what="the pod's sandbox and container")
        pids = [pid for pid, _ in processes_mentioning(str(node.dir))]
        assert len(pids) >= 4  # containerd, kubelet, kube-proxy and the shims
        raise RuntimeError("the test failed")
    # Exited: a zombie the machine's init has not reaped yet counts as gone (start_ticks says None).
    assert pids and not [pid for pid in pids if start_ticks(pid) is not None]
    assert not where.exists()
