"""Start/stop the operator as a real subprocess and read cluster state for the operator tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from kubernetes import client

from workloads.core import GROUP, VERSION
from workloads.core.kinds import KINDS
from workloads.core.labels import WORKLOAD_LABEL

ROOT = Path(__file__).resolve().parents[3]
PLURALS = {kind: info.plural for kind, info in KINDS.items()}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OperatorProcess:
    """``python -m workloads.core.operator`` with its own metrics port and log file."""

    def __init__(self, kubeconfig: Path, log_dir: Path, name: str, lease_name: str, *extra: str) -> None:
        self.port = free_port()
        self.log_path = log_dir / f"{name}.log"
        self.identity = name
        self.args = [sys.executable, "-m", "workloads.core.operator", "--kubeconfig", str(kubeconfig),
                     "--context", "member-a", "--context", "member-b", "--lease-context", "host",
                     "--lease-name", lease_name, "--lease-duration", "4", "--renew-period", "1",
                     "--identity", name, "--metrics-port", str(self.port), "--resync-seconds", "60", *extra]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> OperatorProcess:
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(self.args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        log.close()
        return self

    def metrics(self) -> dict[str, float]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=2) as resp:
                text = resp.read().decode()
        except OSError:
            return {}
        return {line.split()[0].removeprefix("pincompute_operator_"): float(line.split()[1])
                for line in text.splitlines() if line.strip()}

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self, timeout: float = 30) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
                raise
        return int(self.proc.returncode)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]


def wait_for(predicate, timeout: float = 60, interval: float = 0.25, what: str = "condition"):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {last!r}")


def custom(api: client.ApiClient) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api)


def get_cr(api: client.ApiClient, kind: str, namespace: str, name: str) -> dict | None:
    try:
        return custom(api).get_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[kind], name)
    except client.ApiException as exc:
        if exc.status == 404:
            return None
        raise


def create_cr(api: client.ApiClient, cr: dict) -> dict:
    namespace = cr["metadata"]["namespace"]
    return custom(api).create_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[cr["kind"]], cr)


def patch_cr(api: client.ApiClient, kind: str, namespace: str, name: str, body: dict) -> dict:
    return custom(api).patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[kind], name, body)


def delete_cr(api: client.ApiClient, kind: str, namespace: str, name: str) -> None:
    custom(api).delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[kind], name)


def condition(cr: dict | None, type_: str) -> dict:
    for item in ((cr or {}).get("status") or {}).get("conditions") or []:
        if item.get("type") == type_:
            return item
    return {}


def is_ready(api: client.ApiClient, kind: str, namespace: str, name: str) -> dict | None:
    cr = get_cr(api, kind, namespace, name)
    if cr and condition(cr, "Ready").get("status") == "True" and \
            cr["status"].get("observedGeneration") == cr["metadata"]["generation"]:
        return cr
    return None


def owned(api: client.ApiClient, namespace: str, workload: str) -> dict[str, list[dict]]:
    """Every managed object of the workload by kind (as plain dicts)."""
    selector = f"{WORKLOAD_LABEL}={workload}"
    sanitize = api.sanitize_for_serialization
    core, apps, batch = client.CoreV1Api(api), client.AppsV1Api(api), client.BatchV1Api(api)
    net, hpa = client.NetworkingV1Api(api), client.AutoscalingV2Api(api)
    lists = {
        "Pod": core.list_namespaced_pod, "Service": core.list_namespaced_service,
        "ConfigMap": core.list_namespaced_config_map,
        "PersistentVolumeClaim": core.list_namespaced_persistent_volume_claim,
        "Deployment": apps.list_namespaced_deployment, "DaemonSet": apps.list_namespaced_daemon_set,
        "Job": batch.list_namespaced_job, "CronJob": batch.list_namespaced_cron_job,
        "Ingress": net.list_namespaced_ingress,
        "HorizontalPodAutoscaler": hpa.list_namespaced_horizontal_pod_autoscaler,
    }
    result = {}
    for kind, fn in lists.items():
        items = [sanitize(o) for o in fn(namespace, label_selector=selector).items]
        if items:
            result[kind] = items
    return result
