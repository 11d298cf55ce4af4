"""Pods as a member's watch cache holds them, with the requests, tier and workload labels sampling reads."""

from __future__ import annotations

from typing import Any

from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL


def running_pod(name: str, project: str, *, cpu: str = "1", memory: str = "1Gi", gpu: str = "0",
                tier: str = "ondemand", workload: str = "web", kind: str = "PinApp",
                phase: str = "Running") -> dict[str, Any]:  # fmt: skip
    requests = {"cpu": cpu, "memory": memory, **({"nvidia.com/gpu": gpu} if gpu != "0" else {})}
    labels = {WORKLOAD_LABEL: workload, KIND_LABEL: kind} if workload else {}
    return {
        "metadata": {"name": name, "namespace": f"proj-{project}", "labels": labels},
        "spec": {
            "priorityClassName": f"pincompute-{tier}",
            "containers": [{"name": "app", "image": "busybox", "resources": {"requests": requests}}],
        },
        "status": {"phase": phase},
    }
