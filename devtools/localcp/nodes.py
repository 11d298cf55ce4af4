"""API-side setup of a started cluster: kwok Nodes and the default ServiceAccount."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from kubernetes import client, config
from kubernetes.client.rest import ApiException

from . import kwokcfg
from .layout import ClusterInfo
from .procs import ComponentError

if TYPE_CHECKING:
    from .controlplane import LocalControlPlane


def api_client(kubeconfig: str, context: str) -> client.ApiClient:
    """An ApiClient for one context of ``kubeconfig`` (never touches the global default config)."""
    return config.new_client_from_config(config_file=str(kubeconfig), context=context, persist_config=False)


def node_name(cluster: ClusterInfo, index: int) -> str:
    return f"kwok-{cluster.name}-{index:03d}"


def _node_ready(node: client.V1Node) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in (node.status.conditions or []))


def ensure_nodes(cp: LocalControlPlane, cluster: ClusterInfo, count: int, deadline: float | None = None) -> None:
    """Create the missing kwok Nodes (0..count-1) and wait until all of them are Ready."""
    deadline = deadline or time.monotonic() + 120
    with api_client(str(cp.kubeconfig_path), cluster.context) as api:
        core = client.CoreV1Api(api)
        existing = {n.metadata.name for n in core.list_node(label_selector="type=kwok").items}
        for i in range(count):
            name = node_name(cluster, i)
            if name in existing:
                continue
            body = kwokcfg.node_manifest(name, i, region=cluster.region, zone=cluster.zone)
            try:
                core.create_node(body)
            except ApiException as exc:
                if exc.status != 409:
                    raise
        want = {node_name(cluster, i) for i in range(count)}
        _point_nodes_at_kwok(core, cluster)
        for name in existing - want:
            if name.startswith(f"kwok-{cluster.name}-"):
                core.delete_node(name)
        while True:
            nodes = core.list_node(label_selector="type=kwok").items
            ready = {n.metadata.name for n in nodes if _node_ready(n)}
            if want <= ready:
                break
            if time.monotonic() > deadline:
                raise ComponentError(
                    f"{cluster.name}/kwok",
                    f"{len(want - ready)} of {count} nodes not Ready",
                    cp.state_dir / cluster.name / "logs" / "kwok.log",
                )
            time.sleep(0.5)
    cluster.nodes = count


def _point_nodes_at_kwok(core: client.CoreV1Api, cluster: ClusterInfo) -> None:
    """Nodes made by an earlier kwok keep its port (kwok's heartbeat rewrites it only every ~10 minutes):
    the apiserver would dial the old port for logs and exec after a restart that moved kwok."""
    port = cluster.ports.get("kwok")
    for node in core.list_node(label_selector="type=kwok").items:
        endpoints = node.status.daemon_endpoints
        current = endpoints.kubelet_endpoint.port if endpoints and endpoints.kubelet_endpoint else None
        if port and current not in (None, port):
            patch = {"status": {"daemonEndpoints": {"kubeletEndpoint": {"Port": port}}}}
            core.patch_node_status(node.metadata.name, patch)


def wait_default_service_account(cp: LocalControlPlane, cluster: ClusterInfo, deadline: float | None = None) -> None:
    """The controller-manager creates ``default/default``; pods cannot be created before it exists."""
    deadline = deadline or time.monotonic() + 120
    with api_client(str(cp.kubeconfig_path), cluster.context) as api:
        core = client.CoreV1Api(api)
        while True:
            try:
                core.read_namespaced_service_account("default", "default")
                return
            except ApiException as exc:
                if exc.status != 404:
                    raise
            if time.monotonic() > deadline:
                raise ComponentError(
                    f"{cluster.name}/kube-controller-manager",
                    "default ServiceAccount never appeared",
                    cp.state_dir / cluster.name / "logs" / "kube-controller-manager.log",
                )
            time.sleep(0.3)


def ensure_kwok_crds(cp: LocalControlPlane, cluster: ClusterInfo, deadline: float | None = None) -> None:
    """Install kwok's Exec/Logs/Attach CRDs and wait until they are served (kwok lists them at start)."""
    deadline = deadline or time.monotonic() + 60
    with api_client(str(cp.kubeconfig_path), cluster.context) as api:
        ext = client.ApiextensionsV1Api(api)
        names = []
        for crd in kwokcfg.crds():
            names.append(crd["metadata"]["name"])
            try:
                ext.create_custom_resource_definition(crd)
            except ApiException as exc:
                if exc.status != 409:
                    raise
        while True:
            established = {
                c.metadata.name
                for c in ext.list_custom_resource_definition().items
                if any(cond.type == "Established" and cond.status == "True" for cond in (c.status.conditions or []))
            }
            if set(names) <= established:
                return
            if time.monotonic() > deadline:
                raise ComponentError(f"{cluster.name}/kube-apiserver", f"kwok CRDs not established: {names}")
            time.sleep(0.2)
