"""The federation on the local control plane (host + member-a + member-b): the operator runs as a real
subprocess with ``--host-context host`` against a kubeconfig whose member-b goes through a TCP forwarder
(stopping it is "member-b's apiserver stopped" for the federation, nothing else is disturbed).

Projects are laid out with the core's own tenancy manifests (what the portal's provisioning applies):
the namespace and ProjectQuota on the host, namespace and quotas on each member; member clusters are
the core's ``MemberCluster`` objects with pools sized from the members' real nodes.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client

from devtools.localcp.binaries import default_bin_dir
from devtools.operator_process import OperatorProcess, install_crds
from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.federation.members import MemberSpec, member_cluster_manifest
from pincompute.grants import Allocation
from pincompute.kinds import KINDS, MEMBER_CLUSTER
from pincompute.quantity import Resources, parse_cpu, parse_memory
from pincompute.tenancy import Tenant, host_manifests, member_manifests
from pincompute.tiers import Tier
from tests.harness.forwarder import TcpForwarder, kubeconfig_through_forwarder

MEMBERS = ("member-a", "member-b")


def kubectl(kubeconfig: Path, context: str, *args: str, input: str | None = None) -> str:
    done = subprocess.run(
        [str(default_bin_dir() / "kubectl"), "--kubeconfig", str(kubeconfig), "--context", context, *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def remove_webhook(kubeconfig: Path) -> subprocess.CompletedProcess[str]:
    """``pincompute.operator remove-webhook`` as an admin runs it after uninstalling: the host's admission
    registrations (the webhook's and the policy's) removed."""
    command = ["remove-webhook", f"--kubeconfig={kubeconfig}", "--host-context=host"]
    return subprocess.run(
        [sys.executable, "-m", "pincompute.operator", *command],
        capture_output=True,
        text=True,
        timeout=60,
    )


def host_kubectl(kubeconfig: Path, *args: str, manifest: dict | None = None) -> subprocess.CompletedProcess[str]:
    """kubectl on the host, ``manifest`` (if any) on its stdin as YAML; how it ended is the caller's to judge
    (the admission tests read the refusals kubectl prints)."""
    return subprocess.run(
        [str(default_bin_dir() / "kubectl"), "--kubeconfig", str(kubeconfig), "--context", "host", *args],
        input=yaml.safe_dump(manifest) if manifest is not None else None,
        capture_output=True,
        text=True,
        timeout=60,
    )


def apply_all(api: client.ApiClient, manifests: list[dict[str, Any]]) -> None:
    """Server-side apply through the dynamic client (namespaces, quotas, CRs alike)."""
    from kubernetes import dynamic

    dyn = dynamic.DynamicClient(api)
    for manifest in manifests:
        resource = dyn.resources.get(api_version=manifest["apiVersion"], kind=manifest["kind"])
        dyn.server_side_apply(
            resource,
            body=manifest,
            name=manifest["metadata"]["name"],
            namespace=manifest["metadata"].get("namespace"),
            field_manager="federation-tests",
            force_conflicts=True,
        )


def pinapp(namespace: str, name: str = "web", **spec: object) -> dict[str, Any]:
    """A PinApp of two replicas over local-1a and local-1b in a project's namespace (``spec`` overrides)."""
    container = {"name": "app", "image": "registry.local/search/web:1.0", "resources": {"requests": {"cpu": "100m"}}}
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
            "template": {"containers": [container]},
            **spec,
        },
    }


def custom(api: client.ApiClient) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api)


def get(api: client.ApiClient, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
    try:
        return custom(api).get_namespaced_custom_object(GROUP, VERSION, namespace, KINDS[kind].plural, name)
    except client.ApiException as exc:
        if exc.status == 404:
            return None
        raise


def listed(api: client.ApiClient, kind: str, namespace: str) -> list[dict[str, Any]]:
    return custom(api).list_namespaced_custom_object(GROUP, VERSION, namespace, KINDS[kind].plural)["items"]


def condition(obj: dict[str, Any] | None, type_: str) -> dict[str, Any]:
    for item in ((obj or {}).get("status") or {}).get("conditions") or []:
        if item.get("type") == type_:
            return item
    return {}


def member_spec(name: str, zone: str, region: str, nodes: list[Any]) -> MemberSpec:
    cpu = sum(parse_cpu(n.status.allocatable.get("cpu", "0")) for n in nodes)
    memory = sum(parse_memory(n.status.allocatable.get("memory", "0")) for n in nodes)
    pools = {
        kind: Resources(int(cpu * share), int(memory * share))
        for kind, share in (("reserved", 0.45), ("ondemand", 0.40), ("burst", 0.10))
    }
    return MemberSpec(name, region, zone, ("general",), pools)


@pytest.fixture(scope="session")
def forwarded_kubeconfig(local_control_plane, tmp_path_factory) -> Iterator[tuple[Path, TcpForwarder]]:
    """A copy of the kubeconfig whose member-b server is a forwarder the tests can stop and start."""
    member_b = local_control_plane.cluster("member-b")
    path = tmp_path_factory.mktemp("fedkube") / "kubeconfig"
    forwarder = kubeconfig_through_forwarder(
        Path(local_control_plane.kubeconfig_path), member_b.server, member_b.context, path
    )
    yield path, forwarder
    forwarder.stop()


@pytest.fixture(scope="session")
def federation_clusters(local_control_plane, cluster_api_clients) -> dict[str, client.ApiClient]:
    """CRDs on the host and the members, and one MemberCluster per member on the host."""
    install_crds(local_control_plane.kubeconfig_path, MEMBERS, host="host")
    host = cluster_api_clients["host"]
    for name in MEMBERS:
        info = local_control_plane.cluster(name)
        nodes = client.CoreV1Api(cluster_api_clients[name]).list_node().items
        apply_all(host, [member_cluster_manifest(member_spec(name, info.zone, info.region, nodes))])
    return cluster_api_clients


@pytest.fixture(scope="module")
def federation(federation_clusters, forwarded_kubeconfig, tmp_path_factory) -> Iterator[OperatorProcess]:
    kubeconfig, _ = forwarded_kubeconfig
    lease = f"fed-{uuid.uuid4().hex[:8]}"
    proc = OperatorProcess(kubeconfig, tmp_path_factory.mktemp("fed"), "fed-main", lease, federation=True)
    proc.start()
    wait_for(lambda: proc.metrics().get("leading") == 1.0, 60, what="federation operator leading")
    yield proc
    assert proc.terminate() == 0, proc.log()


Project = Callable[..., str]


@pytest.fixture
def project(federation_clusters) -> Iterator[Project]:
    """``project(cpu=..., memory=..., tier=...)`` lays out a fresh project (namespace on host and members,
    the grant in the host's ProjectQuota) and returns its namespace; removed afterwards."""
    made: list[str] = []

    def make(*, cpu: str = "16", memory: str = "32Gi", pods: int = 0, tier: Tier = Tier.ONDEMAND) -> str:
        name = f"fed-{uuid.uuid4().hex[:6]}"
        grant = Allocation.of(Resources(parse_cpu(cpu), parse_memory(memory)), pods)
        tenant = Tenant(name, name, "team", "CC-1", grants={tier: grant})
        apply_all(federation_clusters["host"], host_manifests(tenant))
        for member in MEMBERS:
            apply_all(federation_clusters[member], member_manifests(tenant))
        made.append(name)
        return name

    yield make
    for name in made:
        for cluster in ("host", *MEMBERS):
            try:
                client.CoreV1Api(federation_clusters[cluster]).delete_namespace(name)
            except client.ApiException as exc:
                if exc.status != 404:
                    raise


def member_cluster(api: client.ApiClient, name: str) -> dict[str, Any]:
    return custom(api).get_cluster_custom_object(GROUP, VERSION, MEMBER_CLUSTER.plural, name)
