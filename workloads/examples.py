"""One working example per kind, and when to pick each kind over the others: what the catalog pages start from.

Every example is a valid manifest for any project (``tests/workloads/test_examples.py`` validates each with the
core), small enough to fit a starter grant, and sets the fields people change first, so the form generated from
the kind's schema shows them filled in.
"""

from __future__ import annotations

import copy
from typing import Any

from pincompute import API_VERSION

_WEB = {
    "name": "web",
    "image": "registry.local/demo/web:1.4.2",
    "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
    "env": [{"name": "LOG_LEVEL", "value": "info"}],
    "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}},
    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
}

_SPECS: dict[str, tuple[str, dict[str, Any]]] = {
    "PinPod": (
        "notebook",
        {
            "containers": [
                {
                    "name": "jupyter",
                    "image": "registry.local/demo/notebook:3.1",
                    "ports": [{"name": "http", "containerPort": 8888, "protocol": "TCP"}],
                    "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
                }
            ],
            "restartPolicy": "Always",
            "persistence": {"size": "5Gi", "mountPath": "/home/jovyan"},
        },
    ),
    "PinApp": (
        "web",
        {
            "replicas": 2,
            "zones": ["local-1a", "local-1b"],
            "template": {"containers": [_WEB]},
            "service": {"ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
        },
    ),
    "PinScaler": (
        "web-scaler",
        {
            "targetRef": {"name": "web", "kind": "PinApp"},
            "minReplicas": 2,
            "maxReplicas": 6,
            "metrics": [{"type": "CPU", "targetUtilization": 70}],
            "behavior": {"scaleUpCooldownSeconds": 60, "scaleDownCooldownSeconds": 300},
        },
    ),
    "PinterestService": (
        "api",
        {
            "replicas": 2,
            "containers": [dict(_WEB, name="api")],
            "ports": [{"name": "http", "port": 80, "targetPort": "http"}],
            "ingress": {"host": "api.demo.example.com", "path": "/", "port": "http"},
        },
    ),
    "PinterestJobSet": (
        "backfill",
        {
            "shards": 4,
            "parallelism": 2,
            "backoffLimit": 3,
            "ttlSecondsAfterFinished": 3600,
            "containers": [
                {
                    "name": "worker",
                    "image": "registry.local/demo/backfill:7",
                    "args": ["--date=2024-05-01"],
                    "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}},
                }
            ],
        },
    ),
    "PinterestCronJob": (
        "nightly-report",
        {
            "schedule": "30 2 * * *",
            "timeZone": "UTC",
            "concurrencyPolicy": "Forbid",
            "containers": [
                {
                    "name": "report",
                    "image": "registry.local/demo/report:1",
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                }
            ],
        },
    ),
    "PinterestDaemon": (
        "node-agent",
        {
            "containers": [
                {
                    "name": "agent",
                    "image": "registry.local/demo/agent:3",
                    "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}},
                }
            ],
            "updateStrategy": {"type": "RollingUpdate", "maxUnavailable": 1},
        },
    ),
    "PinterestTrainingJob": (
        "ranker",
        {
            "framework": "PyTorch",
            "workers": 2,
            "containers": [
                {
                    "name": "pytorch",
                    "image": "registry.local/demo/ranker:5",
                    "command": ["torchrun"],
                    "args": ["train.py", "--epochs=3"],
                    "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
                }
            ],
        },
    ),
}

PICK: dict[str, str] = {
    "PinPod": "Pick it for one pod you work in or keep around: a notebook, a debugging box, a single stateful "
    "tool. It keeps its disk across restarts and stop/start. Need more than one copy, or zones? Use a PinApp.",
    "PinApp": "Pick it for a long-running application that needs several replicas spread over zones and "
    "rolled out zone by zone. Want a DNS name, an ingress and config managed with it? Use a Service bundle.",
    "PinScaler": "Pick it to scale an existing PinApp on CPU, memory or a custom metric, with cooldowns and "
    "scheduled windows. It runs no pods itself: it follows its target PinApp's placement.",
    "PinterestService": "Pick it for a stateless HTTP/gRPC service that needs its Service, ingress host and "
    "configuration kept together. No ingress or config needed, only replicas over zones? A PinApp is simpler.",
    "PinterestJobSet": "Pick it for batch work cut into shards that run to completion (each pod gets "
    "SHARD_INDEX and SHARD_COUNT). Runs on a schedule? Use a CronJob. Distributed training? Use a Training job.",
    "PinterestCronJob": "Pick it for work that runs to completion on a cron schedule (reports, cleanups). "
    "One run now, cut into shards? Use a JobSet.",
    "PinterestDaemon": "Pick it for an agent that runs one pod on every node of every cluster it fits "
    "(log or metrics shippers, node tools). It asks quota for each node.",
    "PinterestTrainingJob": "Pick it for distributed PyTorch or TensorFlow training: a master and workers "
    "with the rendezvous environment set (RANK, WORLD_SIZE, MASTER_ADDR...). Set gpusPerWorker for GPUs.",
}


def example(kind: str, project: str = "my-project", tier: str = "OnDemand") -> dict[str, Any]:
    """A fresh copy of ``kind``'s example manifest in ``project`` (KeyError for an unknown kind)."""
    name, spec = _SPECS[kind]
    return {
        "apiVersion": API_VERSION,
        "kind": kind,
        "metadata": {"name": name},
        "spec": {"project": project, "tier": tier, **copy.deepcopy(spec)},
    }
