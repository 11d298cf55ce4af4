"""kwok configuration: lifecycle stages, logs/exec/attach rules and the simulated Node manifests.

The ``kwok`` binary (unlike ``kwokctl``) ships no default stages: without Stage documents in
``--config`` it exits with "no stages found". The stages below are kwok v0.8.0's
``kustomize/stage/node/fast/node-initialize.yaml``, ``node/heartbeat-with-lease`` and
``pod/fast/{pod-ready,pod-delete}.yaml`` (Apache-2.0, The Kubernetes Authors), plus a pod-complete stage
with a delay that a pod can override with the annotation
``pod-complete.stage.kwok.x-k8s.io/delay`` (a Go duration such as ``"10s"``), and our ``pod-ready-again``: a
Running pod whose Ready condition was set False (the node lifecycle controller, after an outage) is Ready again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from pincompute.labels import HARDWARE_FAMILY_LABEL, NODE_INSTANCE_TYPE_LABEL, NODE_REGION_LABEL, NODE_ZONE_LABEL

KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"
COMPLETE_DELAY_ANNOTATION = "pod-complete.stage.kwok.x-k8s.io/delay"

_STAGES_FILE = Path(__file__).with_name("kwok_stages.yaml")
_USAGE_FILE = Path(__file__).with_name("kwok_usage.yaml")  # the emulated use and its /metrics/resource endpoint
USAGE_CPU_ANNOTATION, USAGE_MEMORY_ANNOTATION = "kwok.x-k8s.io/usage-cpu", "kwok.x-k8s.io/usage-memory"


def resource_metrics_path(node: str) -> str:
    """Where kwok serves a node's kubelet-style resource metrics (on its server port)."""
    return f"/metrics/nodes/{node}/metrics/resource"


def stages_yaml(job_complete_delay_ms: int = 3000) -> str:
    return _STAGES_FILE.read_text().replace("__COMPLETE_DELAY_MS__", str(int(job_complete_delay_ms)))


KWOK_GROUP = "kwok.x-k8s.io"
KWOK_VERSION = "v1alpha1"
PER_POD_KINDS = {"Exec": "execs", "Logs": "logs", "Attach": "attaches"}  # kind -> plural
PENDING_LOG = "_pending.log"
_CRDS_FILE = Path(__file__).with_name("kwok_crds.yaml")


def crds() -> list[dict[str, Any]]:
    """kwok's Exec, Logs and Attach CRDs (per-pod rules, created by the pod supervisor)."""
    return [d for d in yaml.safe_load_all(_CRDS_FILE.read_text()) if d]


def kwok_config(podlogs: str, pod_uid: int, job_complete_delay_ms: int = 3000) -> str:
    """Full ``--config`` for the kwok controller of one cluster (multi-document YAML).

    The cluster-wide rules only cover a pod the supervisor has not seen yet: its exec runs as the pod
    user and the broker answers that the sandbox is not ready; its log is ``podlogs/_pending.log``.
    ``podlogs`` is the log folder as kwok sees it (inside its jail).
    """
    pending = f"{podlogs}/{PENDING_LOG}"
    rules: list[dict[str, Any]] = [
        {
            "apiVersion": f"{KWOK_GROUP}/{KWOK_VERSION}",
            "kind": "ClusterLogs",
            "metadata": {"name": "pending-pods"},
            "spec": {"selector": {}, "logs": [{"logsFile": pending, "follow": True}]},
        },
        {
            "apiVersion": f"{KWOK_GROUP}/{KWOK_VERSION}",
            "kind": "ClusterExec",
            "metadata": {"name": "pending-pods"},
            "spec": {"selector": {}, "execs": [{"local": _local_exec(None, pod_uid)}]},
        },
        {
            "apiVersion": f"{KWOK_GROUP}/{KWOK_VERSION}",
            "kind": "ClusterAttach",
            "metadata": {"name": "pending-pods"},
            "spec": {"selector": {}, "attaches": [{"logsFile": pending}]},
        },
    ]
    docs = [yaml.safe_dump(r, sort_keys=False) for r in rules]
    return "---\n".join([*docs, stages_yaml(job_complete_delay_ms), _USAGE_FILE.read_text()])


def _local_exec(pod: str | None, pod_uid: int) -> dict[str, Any]:
    envs = [{"name": "PINCONSOLE_POD", "value": pod}] if pod else []
    return {"workDir": "/", "envs": envs, "securityContext": {"runAsUser": pod_uid, "runAsGroup": pod_uid}}


def pod_rules(
    namespace: str, name: str, pod_uid_k8s: str, log_file: str, run_as: int, containers: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """The pod's own kwok rules by kind: exec in its sandbox, its console log; owned by the pod (GC).

    One exec target per container, naming it after the pod (``PINCONSOLE_POD=<namespace>/<pod>/<container>``), so
    that the broker knows which container an exec is for (a ``kill`` of its PID 1 restarts that container); the
    last target, with no container, covers any other."""
    owner = {"apiVersion": "v1", "kind": "Pod", "name": name, "uid": pod_uid_k8s, "blockOwnerDeletion": False}
    pod = f"{namespace}/{name}"
    execs = [{"containers": [c], "local": _local_exec(f"{pod}/{c}", run_as)} for c in containers]
    specs: dict[str, dict[str, Any]] = {
        "Exec": {"execs": [*execs, {"local": _local_exec(pod, run_as)}]},
        "Logs": {"logs": [{"logsFile": log_file, "follow": True}]},
        "Attach": {"attaches": [{"logsFile": log_file}]},
    }
    return {
        kind: {
            "apiVersion": f"{KWOK_GROUP}/{KWOK_VERSION}",
            "kind": kind,
            "metadata": {"name": name, "namespace": namespace, "ownerReferences": [owner]},
            "spec": spec,
        }
        for kind, spec in specs.items()
    }


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
