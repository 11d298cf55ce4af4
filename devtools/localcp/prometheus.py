"""Prometheus, the usage metrics of the local stack: one process on loopback with its own data dir.

The dev command and the test harness each start one (the chart points the portal at an existing one through
``PROMETHEUS_URL``). It scrapes what kwok emulates for its pods (``kwok_usage.yaml``: a kubelet-style
``/metrics/resource`` per node on kwok's server port) from the targets ``write_targets`` puts in its file-based
service discovery, so a control plane started after Prometheus (or with other nodes) is picked up on the next
refresh without a restart. The binary is Debian's ``prometheus`` package (the bootstrap installs it).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path

import yaml

from .kwokcfg import resource_metrics_path
from .layout import ClusterInfo
from .loopback_service import LoopbackService

TARGETS_FILE = "targets.json"


class MetricsFailed(RuntimeError):
    """Prometheus did not start (the message ends with its log's tail)."""


class Prometheus(LoopbackService):
    """``start()`` and ``stop()`` may be called again (a restart keeps the data dir and the port)."""

    program, health_path, failure = "prometheus", "/-/ready", MetricsFailed

    def __init__(self, data_dir: Path, port: int, *, scrape_seconds: int = 5, retention: str = "2d") -> None:
        self.data_dir = Path(data_dir)
        self.port = port
        self.scrape_seconds = scrape_seconds
        self.retention = retention

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def targets_file(self) -> Path:
        return self.data_dir / TARGETS_FILE

    def config(self) -> dict[str, object]:
        every = f"{self.scrape_seconds}s"
        return {
            "global": {"scrape_interval": every, "evaluation_interval": every},
            "scrape_configs": [
                {
                    "job_name": "kwok-resource",
                    "scrape_interval": every,
                    "file_sd_configs": [{"files": [str(self.targets_file)], "refresh_interval": every}],
                }
            ],
        }

    def argv(self) -> list[str]:
        binary = shutil.which("prometheus")
        if binary is None:
            raise MetricsFailed("prometheus is not installed (the bootstrap installs Debian's package)")
        return [
            binary,
            f"--config.file={self.data_dir / 'prometheus.yml'}",
            f"--storage.tsdb.path={self.data_dir / 'data'}",
            f"--storage.tsdb.retention.time={self.retention}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            "--log.level=warn",
        ]

    def prepare(self) -> None:
        super().prepare()
        (self.data_dir / "prometheus.yml").write_text(yaml.safe_dump(self.config(), sort_keys=False))
        if not self.targets_file.exists():
            self.targets_file.write_text("[]")

    def start(self, timeout: float = 60) -> None:
        """Its default wait is longer: Prometheus replays its write-ahead log before it is ready."""
        super().start(timeout)

    def scrape(self, clusters: Iterable[ClusterInfo]) -> None:
        """Scrape every kwok node of these member clusters (replacing the previous targets)."""
        write_targets(self.targets_file, clusters)


def target_groups(clusters: Iterable[ClusterInfo]) -> list[dict[str, object]]:
    """One file_sd group per kwok node: its server port, the node's metrics path, and ``cluster``/``node`` labels."""
    from .nodes import node_name  # local import: the kubernetes client is slow to import, the harness loads this early

    groups: list[dict[str, object]] = []
    for c in clusters:
        if c.role != "member" or "kwok" not in c.ports:
            continue
        for i in range(c.nodes):
            node = node_name(c, i)
            groups.append({
                "targets": [f"127.0.0.1:{c.ports['kwok']}"],
                "labels": {"cluster": c.name, "node": node, "__metrics_path__": resource_metrics_path(node)},
            })  # fmt: skip
    return groups


def write_targets(path: Path, clusters: Iterable[ClusterInfo]) -> None:
    """Atomically: Prometheus rereads the file on change and must never see half of it."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(target_groups(clusters), indent=1))
    tmp.replace(path)
