"""The portal as a bench serves it: one uvicorn process with DEBUG off and no watch caches, an API token to call it
with, and the wait until it answers. Shared by the benches that measure the portal process itself (api_floor,
bad_bodies); the database and Redis are the caller's (``provisioning.Backing``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def api_token(project: str, username: str, *, superuser: bool = False) -> str:
    """``project`` with ``username`` as its owner (a platform admin when ``superuser``), and a day's API token."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from accounts.services import create_api_token
    from projects.models import Membership, Project

    call_command("migrate", verbosity=0, interactive=False)
    user, _ = get_user_model().objects.get_or_create(username=username, defaults={"is_superuser": superuser})
    found, _ = Project.objects.get_or_create(name=project, defaults={"team": "bench", "cost_center": "CC-1"})
    Membership.objects.get_or_create(project=found, user=user, defaults={"role": "owner"})
    return create_api_token(user=user, name=f"{username}-{time.time_ns()}", days=1)[1]


def serve(
    port: int, *, root: Path = ROOT, log_level: str = "warning", env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """uvicorn serving ``root``'s portal on ``port`` (in its own session: stop it with its process group)."""
    settings = dict(os.environ) | {
        "DEBUG": "false",
        "SECRET_KEY": "bench-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "WATCH_CACHE_ENABLED": "false",
    }
    args = ["console.asgi:application", "--port", str(port), "--log-level", log_level, "--no-access-log"]
    return subprocess.Popen(
        [sys.executable, "-m", "uvicorn", *args], cwd=root, env=settings | (env or {}), start_new_session=True
    )


def wait_until_healthy(proc: subprocess.Popen[bytes], base: str, timeout: float = 60) -> None:
    """Until ``base``/healthz answers; fails when the process exits or ``timeout`` passes first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            httpx.get(f"{base}/healthz", timeout=1)
            return
        except httpx.TransportError:
            assert proc.poll() is None and time.monotonic() < deadline, "the portal did not start"
            time.sleep(0.2)
