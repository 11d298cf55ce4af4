"""The image runs: web (uvicorn), worker, beat and the operator as podman containers, run as the chart runs them
(uid 10001, read-only root, /tmp on tmpfs, a memory limit each) on the host's network against the harness's
PostgreSQL, Redis and local clusters, and a user gets through them what the product promises: the sign-in page, an
API call with a token, a project provisioned by the containerized worker, a workload placed by the containerized
operator and a shell on its pod over the containerized web's websocket. The migration command migrates a fresh
database from the image. Every container is removed also when the test fails, and nothing is left."""

from __future__ import annotations

import base64
import json
import os
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import yaml
from django.conf import settings
from kubernetes import client as k8s
from websockets.sync.client import connect

from accounts.services import create_api_token
from devtools.devstack import sync_member_clusters
from devtools.localcp.nodes import api_client
from devtools.waiting import wait_for
from pincompute.labels import WORKLOAD_LABEL
from projects.models import ClusterProvisioning
from tests.harness.image import ROOT, BuiltImage
from tests.harness.podman import Podman
from tests.harness.services import free_port
from tests.support.provisioning import federation, pools, register, subprocess_database_url, team_project  # noqa: F401
from tests.support.sessions import session_for

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]
CHART_UID = 10001
PINAPP = """
apiVersion: pincompute.io/v1
kind: PinApp
metadata: {name: shop}
spec:
  tier: OnDemand
  replicas: 1
  zones: [local-1a]
  template:
    containers:
    - name: app
      image: registry.local/app:1
      resources: {requests: {cpu: "1", memory: 1Gi}}
"""


@pytest.fixture(scope="module")
def container_kubeconfig(local_control_plane: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The local clusters' kubeconfig with the CA inlined and readable by the chart's uid, mounted read-only at the
    path the registry records (the host's own copy sits in a directory only root may enter)."""
    config = yaml.safe_load(Path(local_control_plane.kubeconfig_path).read_text())
    for entry in config["clusters"]:
        ca = Path(entry["cluster"].pop("certificate-authority")).read_bytes()
        entry["cluster"]["certificate-authority-data"] = base64.b64encode(ca).decode()
    path = tmp_path_factory.mktemp("image-kube") / "kubeconfig"
    path.write_text(yaml.safe_dump(config))
    os.chown(path, CHART_UID, CHART_UID)
    path.chmod(0o600)
    return f"{path}:{local_control_plane.kubeconfig_path}:ro"


def portal_env() -> dict[str, str]:
    """What the chart's ConfigMap and Secret give the containers, pointed at the harness's test database and Redis."""
    return {
        "DATABASE_URL": subprocess_database_url(),
        "REDIS_URL": os.environ["REDIS_URL"],
        "SECRET_KEY": settings.SECRET_KEY,  # the sessions this test signs must verify there
        "ALLOWED_HOSTS": "127.0.0.1",
        "DEBUG": "false",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        "PINCONSOLE_DEV_LOGIN": "true",  # the ModelBackend the test's session names
        "READYZ_CACHE_SECONDS": "0",
    }


@pytest.fixture
def portal(
    podman: Podman,
    project_image: BuiltImage,
    container_kubeconfig: str,
    federation: Any,  # noqa: F811 - the fixture: the registry's clusters with the platform installed
    pools: Any,  # noqa: F811 - the fixture: room in every member's pools
) -> Iterator[Portal]:
    """web, worker, beat and the federation operator from the image, once the web answers /healthz."""
    sync_member_clusters()
    web_port, metrics_port, tag = free_port(), free_port(), uuid.uuid4().hex[:8]
    run = {"env": portal_env(), "volumes": [container_kubeconfig]}
    operator = ["python", "-m", "pincompute.operator", "run", "--kubeconfig", container_kubeconfig.split(":")[1],
                "--context", "member-a", "--context", "member-b", "--host-context", "host",
                "--lease-namespace", "default", "--lease-name", f"image-{tag}", "--identity", f"image-{tag}",
                "--metrics-bind-address", f"127.0.0.1:{metrics_port}"]  # fmt: skip
    with ExitStack() as stack:
        names = []
        for role, memory, command in (
            ("web", "768m", ["uvicorn", "console.asgi:application", "--host", "127.0.0.1", "--port", str(web_port)]),
            ("worker", "512m", ["celery", "-A", "console", "worker", "-l", "info", "--concurrency", "2"]),
            ("beat", "256m", ["celery", "-A", "console", "beat", "-l", "info", "--schedule", "/tmp/beat-schedule"]),
            ("operator", "384m", operator),
        ):
            name = f"pc-{role}-{tag}"
            stack.enter_context(podman.running(name, project_image.image_id, command, memory=memory, **run))
            stack.callback(lambda n=name: print(f"--- {n}\n{podman.logs(n)}"))  # on the report when a test fails
            names.append(name)
        url = f"http://127.0.0.1:{web_port}"
        wait_for(lambda: answers(f"{url}/healthz"), 120, interval=0.5, what="the containerized web's /healthz")
        yield Portal(url, podman, names)
    assert podman.owned_containers(owner=os.getpid()) == []


@dataclass(frozen=True)
class Portal:
    url: str
    podman: Podman
    containers: list[str]

    def states(self) -> dict[str, str]:
        """{container: "<running> <memory limit in bytes>"}."""
        inspect = ("inspect", "--format", "{{.State.Running}} {{.HostConfig.Memory}}")
        return {name: self.podman(*inspect, name).stdout.strip() for name in self.containers}


def answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def shell_echo(url: str, path: str, cookie: dict[str, str]) -> str:
    """Open a terminal over the web's websocket as a browser does, type a command, and return what it printed."""
    ws_url = url.replace("http://", "ws://") + path
    headers = {"Origin": url, "Cookie": "; ".join(f"{k}={v}" for k, v in cookie.items())}
    seen = ""
    with connect(ws_url, additional_headers=headers, open_timeout=30) as ws:
        status = json.loads(ws.recv(timeout=30))
        assert status["state"] == "connected", status  # else the message says why
        ws.send(json.dumps({"type": "stdin", "data": "echo hello-$((6*7))\r"}))
        while "hello-42" not in seen:
            message = json.loads(ws.recv(timeout=30))
            if message["type"] == "stdout":
                seen += message["data"]
    return seen


def test_a_user_goes_through_the_containerized_portal_worker_and_operator(
    portal: Portal, local_control_plane: Any, admin_user: Any, user: Any
) -> None:
    http = httpx.Client(base_url=portal.url, timeout=30)
    sign_in = http.get("/login/")
    assert sign_in.status_code == 200 and "Sign in" in sign_in.text

    # Onboarding queues provisioning to Redis: the containerized worker applies it on every cluster.
    project = team_project("image", admin_user, user, grants={"ondemand": ("8", "16Gi", "0", "0")})
    wait_for(
        lambda: set(ClusterProvisioning.objects.filter(project=project).values_list("state", flat=True)) == {"ready"},
        180, interval=1, what="the project provisioned by the worker container",
    )  # fmt: skip

    token = create_api_token(user=user, name="image", days=1)[1]
    api = {"Authorization": f"Bearer {token}"}
    me = http.get("/api/v1/me/", headers=api)
    assert me.status_code == 200 and me.json()["username"] == user.username, me.text
    workloads = f"/api/v1/projects/{project.name}/workloads/"
    created = http.post(workloads, content=PINAPP, headers={**api, "Content-Type": "application/yaml"})
    assert created.status_code == 201, created.text

    # The containerized operator admits and places it; the web's API reports it running on a member.
    def running() -> list[str]:
        status = http.get(f"{workloads}PinApp/shop/", headers=api).json()["status"]
        return list(status["clusters"]) if status["phase"] == "Running" else []

    clusters = wait_for(running, 180, interval=1, what="the PinApp placed and running")
    member = clusters[0]
    core = k8s.CoreV1Api(api_client(str(local_control_plane.kubeconfig_path), member))

    def running_pod() -> str | None:  # the workload's Running may count a pod before this member's is up
        pods = core.list_namespaced_pod(project.namespace, label_selector=f"{WORKLOAD_LABEL}=shop").items
        up = [p for p in pods if p.status.phase == "Running" and not p.metadata.deletion_timestamp]
        return up[0].metadata.name if up else None

    pod = wait_for(running_pod, 60, interval=0.5, what=f"a Running pod of the PinApp on {member}")
    shell = f"/ws/exec/{member}/{project.namespace}/{pod}/app/"
    cookie = session_for(user)

    def echoed() -> str | None:  # the containerized web reads pods from its watch cache, which may lag the member
        try:
            return shell_echo(portal.url, shell, cookie)
        except AssertionError as exc:
            if "No such pod" in str(exc):
                return None
            raise

    assert "hello-42" in wait_for(echoed, 60, interval=1, what="a shell once the web's cache holds the pod")

    assert http.delete(f"{workloads}PinApp/shop/", headers=api).status_code in (200, 202, 204)
    wait_for(
        lambda: not core.list_namespaced_pod(project.namespace, label_selector=f"{WORKLOAD_LABEL}=shop").items,
        120, interval=1, what="the PinApp's pods removed by the operator",
    )  # fmt: skip
    # All four still up (none crashed or was killed at its memory limit), each under a limit.
    states = {name: state.split() for name, state in portal.states().items()}
    assert {name: (running, int(limit) > 0) for name, (running, limit) in states.items()} == {
        name: ("true", True) for name in portal.containers
    }


def test_the_migration_command_migrates_a_fresh_database(podman: Podman, project_image: BuiltImage) -> None:
    name = f"image_migrate_{uuid.uuid4().hex[:8]}"
    admin = subprocess_database_url().rsplit("/", 1)[0]
    with psycopg.connect(f"{admin}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        env = {**portal_env(), "DATABASE_URL": f"{admin}/{name}"}
        done = podman.run_once(project_image.image_id, ["python", "manage.py", "migrate", "--noinput"], env=env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        with_migrations = {p.parent.parent.name for p in ROOT.glob("*/migrations/0001_initial.py")}
        assert "usage" in with_migrations
        assert {app for app in with_migrations if f"Applying {app}.0001_initial... OK" not in done.stdout} == set()
    finally:
        with psycopg.connect(f"{admin}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_failing_test_leaves_no_container_behind(podman: Podman, project_image: BuiltImage) -> None:
    command = ["python", "-c", "import time; time.sleep(600)"]
    pid = ""
    name = f"pc-failing-{uuid.uuid4().hex[:8]}"
    with (
        pytest.raises(RuntimeError, match="the test failed"),
        podman.running(name, project_image.image_id, command, env={}),
    ):
        pid = podman("inspect", "--format", "{{.State.Pid}}", name).stdout.strip()
        assert int(pid) > 0
        raise RuntimeError("the test failed")
    assert podman.owned_containers(owner=os.getpid()) == []
    assert not Path(f"/proc/{pid}").exists()
