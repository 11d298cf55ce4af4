"""The operator as a real subprocess, and its ``install-crds`` command: shared by the operator bench and tests."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from prometheus_client.parser import text_string_to_metric_families

from devtools.localcp.binaries import default_bin_dir
from devtools.localcp.procs import free_port

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")
WEBHOOK_ARGS = ("--webhook-bind-address", "127.0.0.1:0")
"""The host's admission webhook on a free local port, registered on the host by URL (the dev stack's way)."""


def unregister_webhook(kubeconfig: Path | str, context: str = "host", *, keep_policy: bool = False) -> None:
    """Remove the host's admission registrations (idempotent): the webhook's (with failure policy Fail, a registered
    webhook that no process serves any more refuses every workload write on the host) and, unless ``keep_policy``,
    the ValidatingAdmissionPolicy and its binding the operator registered beside it (left behind, it would go on
    refusing later tests' deliberately bad writes)."""
    _delete_host_admission(kubeconfig, context, ("validatingwebhookconfiguration",) if keep_policy else _ALL)


def unregister_policy(kubeconfig: Path | str, context: str = "host") -> None:
    """Remove the host's ValidatingAdmissionPolicy and its binding alone (idempotent)."""
    _delete_host_admission(kubeconfig, context, _POLICY)


_POLICY = ("validatingadmissionpolicybinding", "validatingadmissionpolicy")
_ALL = ("validatingwebhookconfiguration", *_POLICY)


def _delete_host_admission(kubeconfig: Path | str, context: str, resources: tuple[str, ...]) -> None:
    args = ["delete", ",".join(resources), "pincompute-host-admission", "--ignore-not-found"]
    subprocess.run(
        [str(default_bin_dir() / "kubectl"), "--kubeconfig", str(kubeconfig), "--context", context, *args],
        check=True,
        capture_output=True,
        timeout=60,
    )


def install_crds(
    kubeconfig: Path | str, contexts: Sequence[str] = ("member-a", "member-b"), *, host: str | None = None
) -> None:
    """By the operator's own ``install-crds`` command: CRDs, tier PriorityClasses and project ClusterRoles on
    each member context, and the host's CRDs (ProjectQuota) on ``host``."""
    args = [sys.executable, "-m", "pincompute.operator", "install-crds", "--kubeconfig", str(kubeconfig)]
    for context in contexts:
        args += ["--context", context]
    if host:
        args += ["--host-context", host]
    subprocess.run(args, cwd=ROOT, check=True, timeout=120)


def flat_totals(text: str) -> dict[str, float]:
    """leading, reconciles (member successes), federation_reconciles, queue_depth (ready keys), writes, conflicts,
    errors_temporary, errors_permanent, reconcile_seconds_p50/p99 (from the histogram's buckets),
    ``cause:CONTROLLER:CAUSE`` (reconciles by what queued them) and ``ignored:CONTROLLER:CAUSE`` (watch events that
    queued nothing)."""
    totals: dict[str, float] = {}

    def add(key: str, value: float) -> None:
        totals[key] = totals.get(key, 0.0) + value

    buckets: dict[float, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            name, labels = sample.name.removeprefix("pincompute_operator_"), sample.labels
            if name == "leader":
                totals["leading"] = sample.value
            elif name == "queue_depth" and labels["state"] == "ready":
                add("queue_depth", sample.value)
            elif name in ("writes_total", "resyncs_total"):
                add(name.removesuffix("_total"), sample.value)
            elif name == "retries_total" and labels["reason"] == "conflict":
                add("conflicts", sample.value)
            elif name == "reconcile_causes_total":
                add(f"cause:{labels['controller']}:{labels['cause']}", sample.value)
            elif name == "events_ignored_total":
                add(f"ignored:{labels['controller']}:{labels['cause']}", sample.value)
            elif name == "reconciles_total":
                result, controller = labels["result"], labels["controller"]
                if result == "success":
                    add("reconciles" if controller == "member" else "federation_reconciles", sample.value)
                elif result in ("temporary_error", "permanent_error"):
                    add(f"errors_{result.removesuffix('_error')}", sample.value)
            elif name == "reconcile_duration_seconds_bucket":
                le = float(labels["le"])
                buckets[le] = buckets.get(le, 0.0) + sample.value
    count = buckets.get(math.inf, 0.0)
    for quantile in (50, 99):
        if count:
            totals[f"reconcile_seconds_p{quantile}"] = min(
                (le for le, n in buckets.items() if n >= count * quantile / 100), default=math.inf
            )
    return totals


class OperatorProcess:
    """``python -m pincompute.operator`` on member-a and member-b (lease on the host), with its own
    metrics port and log file; ``federation=True`` makes it the federation controller on the host too."""

    def __init__(
        self, kubeconfig: Path, log_dir: Path, name: str, lease_name: str, *extra: str, federation: bool = False
    ) -> None:
        self.port = free_port()
        self.log_path = log_dir / f"{name}.log"
        self.identity = name
        self.args = [
            sys.executable,
            "-m",
            "pincompute.operator",
            "--kubeconfig",
            str(kubeconfig),
            "--context",
            "member-a",
            "--context",
            "member-b",
            "--lease-context",
            "host",
            "--lease-name",
            lease_name,
            "--lease-duration",
            "4",
            "--renew-period",
            "1",
            "--identity",
            name,
            "--metrics-port",
            str(self.port),
            "--resync-seconds",
            "60",
            *(("--host-context", "host") if federation else ()),
            *extra,
        ]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> OperatorProcess:
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            self.args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}
        )
        log.close()
        return self

    def metrics(self) -> dict[str, float]:
        """The operator's /metrics as the flat totals the benches and tests read ({} while it does not answer)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=2) as resp:
                return flat_totals(resp.read().decode())
        except OSError:
            return {}

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
