"""The layout other processes rely on: clusters.json, kubeconfig contexts, kwok nodes."""

from __future__ import annotations

import json

import pytest
import yaml
from kubernetes import client

from devtools.localcp import LocalControlPlane

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_clusters_json_and_kubeconfig(local_control_plane: LocalControlPlane) -> None:
    data = json.loads((local_control_plane.state_dir / "clusters.json").read_text())
    names = [c["name"] for c in data["clusters"]]
    assert names[0] == "host" and names[1:] == [f"member-{x}" for x in "ab"[: len(names) - 1]]
    for c in data["clusters"]:
        assert c["context"] == c["name"]
        assert c["server"].startswith("https://127.0.0.1:")
        assert c["region"] == "local-1"
    zones = [c["zone"] for c in data["clusters"] if c["role"] == "member"]
    assert len(set(zones)) == len(zones)
    kcfg = yaml.safe_load(local_control_plane.kubeconfig_path.read_text())
    assert {c["name"] for c in kcfg["contexts"]} == set(names)


def test_every_cluster_answers(cluster_api_clients: dict[str, client.ApiClient]) -> None:
    for name, api in cluster_api_clients.items():
        version = client.VersionApi(api).get_code()
        assert version.git_version == "v1.34.10", (name, version.git_version)


def test_member_nodes(local_control_plane: LocalControlPlane, member_api_clients: dict[str, client.ApiClient]):
    for info in local_control_plane.clusters:
        if info.role != "member":
            continue
        nodes = client.CoreV1Api(member_api_clients[info.name]).list_node(label_selector="type=kwok").items
        assert len(nodes) == local_control_plane.nodes_per_member
        gpu = [n for n in nodes if n.metadata.labels["pincompute.io/hardware-family"] == "gpu"]
        assert len(gpu) == local_control_plane.nodes_per_member // 4
        for n in nodes:
            labels = n.metadata.labels
            assert labels["topology.kubernetes.io/zone"] == info.zone
            assert labels["topology.kubernetes.io/region"] == info.region
            assert n.metadata.annotations["kwok.x-k8s.io/node"] == "fake"
            assert any(c.type == "Ready" and c.status == "True" for c in n.status.conditions)
            assert n.status.allocatable["pods"] == "110"
