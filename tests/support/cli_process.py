"""``pincompute`` run as its own process against a served portal, as a user runs it, and the pods the members' watch
caches hold for a workload (what the real-stack CLI tests compare its output with)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from typing import Any

from accounts.services import create_api_token
from clusters import runtime
from pincompute.labels import WORKLOAD_LABEL
from tests.support.sdk import SDK_DIR

Run = Callable[..., tuple[int, str, str]]


def cli_environment(url: str, user: Any) -> dict[str, str]:
    """The CLI's environment with a fresh personal API token of ``user`` (no config file)."""
    token = create_api_token(user=user, name=f"cli-{uuid.uuid4().hex[:4]}", days=1)[1]
    env = {**os.environ, "PINCONSOLE_URL": url, "PINCONSOLE_TOKEN": token, "PYTHONPATH": str(SDK_DIR)}
    env.pop("PINCONSOLE_CONFIG", None)
    return env


def cli_command(env: dict[str, str]) -> Run:
    """``pincompute ARGS`` as a process with ``env``: returns (exit code, stdout, stderr); ``stdin`` is what
    ``-f -`` reads."""

    def run(*argv: str, stdin: str = "", timeout: float = 60) -> tuple[int, str, str]:
        done = subprocess.run(
            [sys.executable, "-m", "pinconsole_sdk.cli", *argv],
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return done.returncode, done.stdout, done.stderr

    return run


def pods_by_member(namespace: str, name: str) -> dict[str, list[str]]:
    """The workload's pods on each member, from the members' watch caches."""
    selector = {WORKLOAD_LABEL: name}
    return {
        member: sorted(p["metadata"]["name"] for p in cache.list("pods", namespace, label_selector=selector))
        for member, cache in runtime.member_caches().items()
    }


def running_pods(namespace: str, name: str) -> dict[str, list[str]]:
    """The workload's Running pods (not being deleted) on each member, from the members' watch caches."""
    selector = {WORKLOAD_LABEL: name}
    return {
        member: sorted(
            p["metadata"]["name"]
            for p in cache.list("pods", namespace, label_selector=selector)
            if (p.get("status") or {}).get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")
        )
        for member, cache in runtime.member_caches().items()
    }
