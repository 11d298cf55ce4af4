"""kwok configuration: lifecycle stages, logs/exec/attach rules and the simulated Node manifests.

The ``kwok`` binary (unlike ``kwokctl``) ships no default stages: without Stage documents in
``--config`` it exits with "no stages found". The stages below are kwok v0.8.0's
``kustomize/stage/node/fast/node-initialize.yaml``, ``node/heartbeat-with-lease`` and
``pod/fast/{pod-ready,pod-delete}.yaml`` (Apache-2.0, The Kubernetes Authors), plus a pod-complete stage
with a delay that a pod can override with the annotation
``pod-complete.stage.kwok.x-k8s.io/delay`` (a Go duration such as ``"10s"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from workloads.core.labels import HARDWARE_FAMILY_LABEL, NODE_INSTANCE_TYPE_LABEL, NODE_REGION_LABEL, NODE_ZONE_LABEL

KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"
COMPLETE_DELAY_ANNOTATION = "pod-complete.stage.kwok.x-k8s.io/delay"

_STAGES_FILE = Path(__file__).with_name("kwok_stages.yaml")


def stages_yaml(job_complete_delay_ms: int = 3000) -> str:
    return _STAGES_FILE.read_text().replace("__COMPLETE_DELAY_MS__", str(int(job_complete_delay_ms)))


def kwok_config(pod_log_file: Path, exec_workdir: Path, job_complete_delay_ms: int = 3000) -> str:
    """Full ``--config`` for the kwok controller of one cluster (multi-document YAML)."""
    rules: list[dict[str, Any]] = [
        {
            "apiVersion": "kwok.x-k8s.io/v1alpha1",
            "kind": "ClusterLogs",
            "metadata": {"name": "all-pods"},
            "spec": {"selector": {}, "logs": [{"logsFile": str(pod_log_file), "follow": True}]},
        },
        {
            "apiVersion": "kwok.x-k8s.io/v1alpha1",
            "kind": "ClusterExec",
            "metadata": {"name": "all-pods"},
            "spec": {
                "selector": {},
                "execs": [
                    {
                        "local": {
                            "workDir": str(exec_workdir),
                            "envs": [
                                {"name": "HOME", "value": str(exec_workdir)},
                                {"name": "PS1", "value": "kwok$ "},
                                {"name": "TERM", "value": "xterm-256color"},
                            ],
                        }
                    }
                ],
            },
        },
        {
            "apiVersion": "kwok.x-k8s.io/v1alpha1",
            "kind": "ClusterAttach",
            "metadata": {"name": "all-pods"},
            "spec": {"selector": {}, "attaches": [{"logsFile": str(pod_log_file)}]},
        },
    ]
    docs = [yaml.safe_dump(r, sort_keys=False) for r in rules]
    return "---\n".join([*docs, stages_yaml(job_complete_delay_ms)])


def node_manifest(
    name: str,
    index: int,
    *,
    region: str,
    zone: str,
    gpu_every: int = 4,
    gpus: int = 8,
) -> dict[str, Any]:
    """A kwok Node: every ``gpu_every``-th node (index 3, 7, ...) is a GPU family node."""
    gpu = gpu_every > 0 and index % gpu_every == gpu_every - 1
    resources: dict[str, str] = {"cpu": "32", "memory": "128Gi", "pods": "110", "ephemeral-storage": "500Gi"}
    if gpu:
        resources = {
            "cpu": "192",
            "memory": "768Gi",
            "pods": "110",
            "ephemeral-storage": "2Ti",
            "nvidia.com/gpu": str(gpus),
        }
    labels = {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
        "kubernetes.io/hostname": name,
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        NODE_INSTANCE_TYPE_LABEL: "g5.48xlarge" if gpu else "m5.8xlarge",
        NODE_REGION_LABEL: region,
        NODE_ZONE_LABEL: zone,
        HARDWARE_FAMILY_LABEL: "gpu" if gpu else "general",
        "type": "kwok",
    }
    if gpu:
        labels["nvidia.com/gpu.product"] = "NVIDIA-A10G"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": labels,
            "annotations": {KWOK_NODE_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": {"podCIDR": f"10.244.{index}.0/24", "podCIDRs": [f"10.244.{index}.0/24"]},
        "status": {
            "capacity": dict(resources),
            "allocatable": dict(resources),
            "nodeInfo": {"architecture": "amd64", "operatingSystem": "linux"},
        },
    }
