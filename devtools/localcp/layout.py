"""Cluster layout (``clusters.json``) and the kubeconfig, readable by any process."""

from __future__ import annotations

import json
import os
import string
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

LAYOUT_VERSION = 1
HOST = "host"


def member_names(count: int) -> list[str]:
    if count > len(string.ascii_lowercase):
        raise ValueError("at most 26 member clusters")
    return [f"member-{string.ascii_lowercase[i]}" for i in range(count)]


@dataclass
class ClusterInfo:
    """One cluster of the local control plane.

    ``ports`` maps component port names (``etcd``, ``etcd_peer``, ``apiserver``,
    ``controller_manager``, ``scheduler``, ``kwok``) to loopback ports.
    """

    name: str
    role: str  # "host" | "member"
    region: str
    zone: str
    context: str
    server: str
    ports: dict[str, int] = field(default_factory=dict)
    components: list[str] = field(default_factory=list)
    nodes: int = 0
    dir: str = ""
    pods_dir: str | None = None  # members: each pod's private filesystem (``pods/<namespace>/<pod>/fs``)
    pod_logs_dir: str | None = None  # members: each pod's console log (``<namespace>/<pod>.log``)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClusterInfo:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class Layout:
    state_dir: str
    kubeconfig: str
    ca_file: str
    bin_dir: str
    region: str
    clusters: list[ClusterInfo]
    version: int = LAYOUT_VERSION
    started_at: float | None = None
    startup_seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["clusters"] = [c.to_dict() for c in self.clusters]
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Layout:
        data = dict(data)
        data["clusters"] = [ClusterInfo.from_dict(c) for c in data.get("clusters", [])]
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


def layout_path(state_dir: Path) -> Path:
    return Path(state_dir) / "clusters.json"


def read_layout(state_dir: Path) -> Layout | None:
    path = layout_path(state_dir)
    try:
        return Layout.from_dict(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def write_layout(state_dir: Path, layout: Layout) -> Path:
    path = layout_path(state_dir)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(layout.to_dict(), indent=2) + "\n")
    tmp.replace(path)
    return path


def kubeconfig_dict(clusters: list[ClusterInfo], ca_file: Path, token: str) -> dict[str, Any]:
    """One kubeconfig, one context per cluster (context == cluster name), one shared admin user."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "preferences": {},
        "current-context": clusters[0].context if clusters else "",
        "clusters": [
            {"name": c.name, "cluster": {"server": c.server, "certificate-authority": str(ca_file)}} for c in clusters
        ],
        "users": [{"name": "localcp-admin", "user": {"token": token}}],
        "contexts": [
            {
                "name": c.context,
                "context": {"cluster": c.name, "user": "localcp-admin", "namespace": "default"},
            }
            for c in clusters
        ],
    }


def write_kubeconfig(path: Path, clusters: list[ClusterInfo], ca_file: Path, token: str) -> Path:
    return write_kubeconfig_data(path, kubeconfig_dict(clusters, ca_file, token))


def write_kubeconfig_data(path: Path, data: dict[str, Any]) -> Path:
    """Write a kubeconfig readable by its owner only (it holds the admin token)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(yaml.safe_dump(data, sort_keys=False))
    os.chmod(tmp, 0o600)
    tmp.replace(path)
    return path
