"""Fixtures for provisioning against the real local control plane: the registry rows of the host and the
members with the platform installed, eager or real Celery, and readers of what a cluster holds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.db import connection
from kubernetes import client

from clusters import runtime
from clusters.models import Cluster
from clusters.services import PoolInput, update_pool
from devtools.devstack import install_platform, installed_on, register_one
from devtools.waiting import wait_for
from pincompute.kinds import PROJECT_QUOTA
from pincompute.kube.rawapi import read_json
from pincompute.operator.install import platform_manifests
from projects import onboarding
from projects.grants import QuotaInput
from projects.members import MemberInput
from projects.models import ClusterProvisioning, Project
from projects.onboarding import ProjectDraft
from tests.harness.forwarder import TcpForwarder

ROOT = Path(__file__).resolve().parents[2]


# What the platform's install left on each cluster of this process' control plane: {(server, role): the
# resourceVersion of each object it applies}. Most live tests register every cluster; applying the ~20 objects again
# (CRDs with their whole schemas) took 0.35 s per cluster on a quiet machine and 2 to 5 s on a loaded one, for no
# change. A test that deleted or edited one of them changed its resourceVersion, and the install runs again.
_installed: dict[tuple[str, str], dict[str, str]] = {}


def platform_versions(cluster: Cluster) -> dict[str, str]:
    """``{path/name: resourceVersion}`` of the objects the install applies that the cluster has, read as metadata
    only (a CRD's schema is most of its bytes)."""
    api = runtime.api_for(cluster)
    accept = {"Accept": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"}
    versions: dict[str, str] = {}
    names_by_path: dict[str, list[str]] = {}
    for resource, manifest in platform_manifests(installed_on(cluster)):
        names_by_path.setdefault(resource.path(), []).append(manifest["metadata"]["name"])
    for path, names in names_by_path.items():
        response = api.call_api(
            path, "GET", header_params=accept, auth_settings=["BearerToken"], _return_http_data_only=True,
            _preload_content=False, _request_timeout=30,
        )  # fmt: skip
        held = {item["metadata"]["name"]: item["metadata"]["resourceVersion"] for item in read_json(response)["items"]}
        versions |= {f"{path}/{name}": held[name] for name in names if name in held}
    return versions


def install_once(cluster: Cluster) -> None:
    """``install_platform``, skipped when every object it applied last time in this process is still as it left
    it."""
    key = (cluster.api_server, cluster.role)
    if key in _installed and _installed[key] == platform_versions(cluster):
        return
    install_platform(cluster)
    _installed[key] = platform_versions(cluster)


@pytest.fixture
def register(local_control_plane):
    """``register(name)``: one local cluster in the registry with the platform installed on it."""

    def register_cluster(name: str) -> Cluster:
        cluster = register_one(local_control_plane, local_control_plane.cluster(name))
        install_once(cluster)
        return cluster

    yield register_cluster
    runtime.shutdown()


@pytest.fixture
def federation(register, local_control_plane) -> list[Cluster]:
    """The host and every member, registered and installed (host first)."""
    return [register(info.name) for info in local_control_plane.clusters]


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    """Tasks run in-process as in the embedded default (the harness sets REDIS_URL, which queues them)."""
    from console.celery import app

    before = app.conf.task_always_eager
    app.conf.CELERY_TASK_ALWAYS_EAGER = True  # the app reads Django settings under the CELERY_ namespace
    yield
    app.conf.CELERY_TASK_ALWAYS_EAGER = before


def add_pools(cluster: Cluster) -> None:
    """Room in every tier pool of a member, so that grants at onboarding apply at once: together within what its
    20 kwok nodes hold (1440 cpu, 5760Gi, 40 GPUs), as the registry requires (``clusters.node_fit``)."""
    for kind in ("reserved", "ondemand", "burst"):
        update_pool(cluster.pk, kind, PoolInput(cpu="400", memory="1600Gi", gpu="12"), actor=None)


@pytest.fixture
def pools(federation) -> None:
    for cluster in federation:
        if cluster.role == "member":
            add_pools(cluster)


def onboard(name: str, actor, *, members=(), grants=None) -> Project:
    """Through the product's onboarding service (which calls ``project_changed`` in its transaction).

    ``members``: (kind, name, role); ``grants``: {tier label: (cpu, memory, gpu, pods)} as quantities."""
    draft = ProjectDraft(
        name=name,
        team="Ads Ranking",
        cost_center="CC-1042",
        members=[MemberInput(kind, subject, role) for kind, subject, role in members]
        or [MemberInput("user", actor.get_username(), "owner")],
        quotas={tier: QuotaInput(*amounts) for tier, amounts in (grants or {}).items()},
    )
    return onboarding.onboard_project(draft, actor=actor)


def team_project(prefix: str, owner, developer, *, grants) -> Project:
    """A fresh project ``<prefix>-<6 hex>`` through ``onboard``: ``owner`` its owner, ``developer`` a developer."""
    members = [("user", owner.username, "owner"), ("user", developer.username, "developer")]
    return onboard(f"{prefix}-{uuid.uuid4().hex[:6]}", owner, members=members, grants=grants)


def states(project: Project) -> dict[str, tuple[str, int]]:
    """{cluster: (state, observed generation)} of the project's records."""
    rows = ClusterProvisioning.objects.filter(project=project).select_related("cluster")
    return {row.cluster.name: (row.state, row.observed_generation) for row in rows}


def core(api: client.ApiClient) -> client.CoreV1Api:
    return client.CoreV1Api(api)


def namespace_or_none(api: client.ApiClient, name: str):
    try:
        return core(api).read_namespace(name)
    except client.ApiException as exc:
        if exc.status == 404:
            return None
        raise


def managed(api: client.ApiClient, namespace: str) -> dict[str, list[str]]:
    """Names of what provisioning put in ``namespace``, per kind."""
    selector = "app.kubernetes.io/managed-by=pincompute"
    rbac = client.RbacAuthorizationV1Api(api)
    return {
        "RoleBinding": sorted(
            rb.metadata.name for rb in rbac.list_namespaced_role_binding(namespace, label_selector=selector).items
        ),
        "ResourceQuota": sorted(
            q.metadata.name for q in core(api).list_namespaced_resource_quota(namespace, label_selector=selector).items
        ),
        "LimitRange": sorted(
            lr.metadata.name for lr in core(api).list_namespaced_limit_range(namespace, label_selector=selector).items
        ),
    }


def project_quota(api: client.ApiClient, project: Project) -> dict:
    return client.CustomObjectsApi(api).get_namespaced_custom_object(
        PROJECT_QUOTA.group, PROJECT_QUOTA.version, project.namespace, PROJECT_QUOTA.plural, project.name
    )


def subprocess_database_url() -> str:
    """The test database as a DATABASE_URL, for worker and crash subprocesses."""
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


def subprocess_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": subprocess_database_url(), "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    env.update(extra)
    return env


def run_python(code: str, *args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def member_behind_forwarder(federation: list[Cluster], tmp_path: Path, name: str) -> tuple[Cluster, TcpForwarder]:
    """A member registered as ``name`` (zone local-1c), reached through a forwarder to the first member's apiserver
    (not started: start it, hold it, or leave it stopped as a refusing apiserver)."""
    member = next(c for c in federation if c.role == "member")
    target = urlsplit(member.api_server)
    forwarder = TcpForwarder((target.hostname, target.port))
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        Path(member.kubeconfig_path).read_text().replace(member.api_server, f"https://127.0.0.1:{forwarder.port}")
    )
    cluster = Cluster.objects.create(
        name=name,
        region="local-1",
        zone="local-1c",
        role="member",
        api_server=f"https://127.0.0.1:{forwarder.port}",
        kubeconfig_path=str(kubeconfig),
        kube_context=member.kube_context,
    )
    return cluster, forwarder


GRANT = {"reserved": ("2", "1Gi", "0", "8")}


class _no_queueing:
    """Onboard without running the tasks, so the crash test starts from nothing provisioned."""

    def __enter__(self):
        from projects import provisioning

        self._queue, provisioning._queue = provisioning._queue, lambda project_id: None

    def __exit__(self, *exc):
        from projects import provisioning

        provisioning._queue = self._queue


def hung_member(federation, tmp_path):
    """A member reached through a forwarder that holds: it accepts connections and never answers."""
    hung, forwarder = member_behind_forwarder(federation, tmp_path, "member-hung")
    forwarder.start()
    forwarder.hold()  # accepts and never answers: member-hung's provisioning stays in flight
    return hung, forwarder


def taken_by_worker(project, log) -> None:
    """Until a worker has taken member-hung's provisioning task for ``project`` (its record says provisioning)."""
    wait_for(
        lambda: states(project).get("member-hung", ("",))[0] == "provisioning",
        timeout=60,
        what=f"the worker to take member-hung's task (log: {log})",
    )


def start_worker(log_path, **env: str) -> subprocess.Popen:
    """``celery -A console worker`` against the harness's Redis and the test database (not eager)."""
    assert os.environ.get("REDIS_URL"), "the harness sets REDIS_URL"
    with log_path.open("ab") as log:
        return subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "console", "worker", "--loglevel", "INFO"),
                *("--concurrency", "2", "--without-gossip", "--without-mingle"),
                *("--hostname", f"provisioning-test-{uuid.uuid4().hex[:6]}@%h"),
            ],
            cwd=ROOT,
            env=subprocess_env(**env),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop_worker(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)  # warm shutdown: finishes the running tasks
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
