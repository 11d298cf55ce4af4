"""One valid manifest per kind; tests copy and break them."""

import copy

_APP = {
    "name": "app",
    "image": "registry.local/search/web:1.4.2",
    "env": [{"name": "LOG_LEVEL", "value": "info"}],
    "ports": [{"name": "http", "containerPort": 8080}],
    "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"memory": "1Gi"}},
    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
}


def _cr(kind, name, spec):
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "search", "uid": f"uid-{name}", "generation": 3},
        "spec": {"project": "search", "team": "discovery", "costCenter": "cc-42", "tier": "Reserved", **spec},
    }


EXAMPLES = {
    "PinPod": _cr(
        "PinPod",
        "notebook",
        {
            "containers": [dict(_APP, name="jupyter")],
            "restartPolicy": "Always",
            "sidecars": [{"name": "sync", "image": "registry.local/tools/sync:2"}],
            "persistence": {"size": "10Gi", "mountPath": "/home/jovyan", "storageClassName": "standard"},
            "hardwareFamily": "m5",
        },
    ),
    "PinApp": _cr(
        "PinApp",
        "web",
        {
            "replicas": 5,
            "zones": ["us-east-1a", "us-east-1b"],
            "template": {"containers": [_APP]},
            "rollout": {"zoneOrder": ["us-east-1b", "us-east-1a"], "maxUnavailable": 1, "maxSurge": "25%"},
            "service": {"ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
        },
    ),
    "PinScaler": _cr(
        "PinScaler",
        "web-scaler",
        {
            "targetRef": {"name": "web"},
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": [
                {"type": "CPU", "targetUtilization": 70},
                {"type": "Pods", "metric": "requests_per_second", "targetAverageValue": "100"},
                {"type": "External", "metric": "queue_depth", "targetValue": "500", "selector": {"queue": "ingest"}},
            ],
            "behavior": {"scaleUpCooldownSeconds": 60, "scaleDownCooldownSeconds": 300},
            "schedules": [
                {
                    "name": "business-hours",
                    "cron": "0 9 * * 1-5",
                    "timeZone": "America/New_York",
                    "minReplicas": 6,
                    "maxReplicas": 20,
                    "durationMinutes": 540,
                }
            ],
        },
    ),
    "PinterestService": _cr(
        "PinterestService",
        "api",
        {
            "replicas": 3,
            "containers": [_APP],
            "ports": [{"name": "http", "port": 80, "targetPort": "http"}],
            "ingress": {"host": "api.search.example.com", "path": "/", "port": "http"},
            "config": {"app.yaml": "threads: 8\n", "feature_flags": "a,b"},
        },
    ),
    "PinterestJobSet": _cr(
        "PinterestJobSet",
        "backfill",
        {
            "shards": 8,
            "parallelism": 4,
            "backoffLimit": 3,
            "ttlSecondsAfterFinished": 3600,
            "containers": [
                {
                    "name": "worker",
                    "image": "registry.local/search/backfill:7",
                    "args": ["--date=2024-05-01"],
                    "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
                }
            ],
        },
    ),
    "PinterestCronJob": _cr(
        "PinterestCronJob",
        "nightly",
        {
            "schedule": "30 2 * * *",
            "timeZone": "UTC",
            "concurrencyPolicy": "Forbid",
            "containers": [{"name": "report", "image": "registry.local/search/report:1"}],
        },
    ),
    "PinterestDaemon": _cr(
        "PinterestDaemon",
        "node-agent",
        {
            "tier": "Reserved",
            "containers": [{"name": "agent", "image": "registry.local/infra/agent:3"}],
            "nodeSelector": {"pincompute.io/pool": "general"},
            "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
            "updateStrategy": {"type": "RollingUpdate", "maxUnavailable": "10%"},
        },
    ),
    "PinterestTrainingJob": _cr(
        "PinterestTrainingJob",
        "ranker",
        {
            "framework": "PyTorch",
            "workers": 3,
            "gpusPerWorker": 1,
            "port": 23456,
            "containers": [
                {
                    "name": "pytorch",
                    "image": "registry.local/ml/ranker:5",
                    "command": ["torchrun"],
                    "args": ["train.py"],
                    "resources": {"requests": {"cpu": "4", "memory": "16Gi"}},
                }
            ],
        },
    ),
}


def example(kind):
    return copy.deepcopy(EXAMPLES[kind])


def pod_specs(obj):
    """Every pod spec inside a native object, wherever the kind keeps it."""
    spec = obj.get("spec") or {}
    if obj["kind"] == "Pod":
        return [spec]
    if obj["kind"] == "CronJob":
        return [spec["jobTemplate"]["spec"]["template"]["spec"]]
    if obj["kind"] in ("PyTorchJob", "TFJob"):
        key = "pytorchReplicaSpecs" if obj["kind"] == "PyTorchJob" else "tfReplicaSpecs"
        return [r["template"]["spec"] for r in spec[key].values()]
    if "template" in spec:
        return [spec["template"]["spec"]]
    return []
