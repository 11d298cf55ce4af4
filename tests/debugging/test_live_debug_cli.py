# ruff: noqa: F811 - fixtures imported from other modules are named as parameters
"""``pincompute debug`` against the real stack (issue 35 §4): the CLI as its own process, with a personal API token,
against the portal's ASGI app under uvicorn and a member cluster's pod: it starts a debug container, waits until it
runs and opens its shell, whose input comes from stdin; an image off the allowlist is exit 1 naming the field."""

from __future__ import annotations

# isort: off
from tests.support.sdk import SDK_DIR, asgi_portal  # noqa: F401 - first: the SDK's own directory on sys.path
# isort: on

import os
import subprocess
import sys

import pytest

from accounts.services import create_api_token
from base.models import AuditEvent
from tests.support.debugging import member

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def pincompute(asgi_portal, user, project):
    member(project, user, "developer")
    token = create_api_token(user=user, name="cli-debug", days=1)[1]
    env = {**os.environ, "PINCONSOLE_URL": asgi_portal.url, "PINCONSOLE_TOKEN": token, "PYTHONPATH": str(SDK_DIR)}
    env.pop("PINCONSOLE_CONFIG", None)

    def run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
        done = subprocess.run(
            [sys.executable, "-m", "pinconsole_sdk.cli", *argv],
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return done.returncode, done.stdout, done.stderr

    return run


def test_pincompute_debug_opens_a_shell_in_a_debug_container_that_sees_the_pods_files(live_pods, project, pincompute):
    pod = live_pods["names"][0]
    where = (pod, "-p", project.name, "--cluster", "member-a")

    code, out, err = pincompute("debug", *where, "-c", "app", "--timeout", "60", stdin="head -1 /var/log/app.log\n")
    refused = pincompute("debug", *where, "--image", "evil:latest")

    assert code == 0, err
    assert f"[{project.namespace}/{pod}] seq=" in out and "Starting debug container debugger-" in err
    started = AuditEvent.objects.get(action="debug.start")
    assert started.after["target"] == "app" and started.after["container"] in err
    shell = AuditEvent.objects.get(action="shell.open")  # the shell opened in the debug container, not in app
    assert shell.target_name == f"{project.namespace}/{pod}/{started.after['container']}"
    assert refused[0] == 1 and "image: 'evil:latest' is not an allowed debug image" in refused[2]
