"""pytest fixtures for the local Kubernetes control plane and dex.

Load with ``-p tests.harness.localcp`` (or import the fixtures from a conftest/plugin).

Environment:
  PINCONSOLE_TEST_STATE_DIR  reuse the control plane running in that state dir (started there if not
                             running; only a control plane started by the fixture is stopped at the end)
  PINCONSOLE_TEST_MEMBERS    member clusters (default 2)
  PINCONSOLE_TEST_NODES      kwok nodes per member (default 20)
  CI=true                    no difference in outcome: a component that cannot start always FAILS the
                             test with the component's log tail; nothing is skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client

from devtools.localcp import ComponentError, DexServer, LocalControlPlane
from devtools.localcp.binaries import BinariesMissing
from devtools.localcp.layout import read_layout
from devtools.localcp.nodes import api_client
from devtools.localcp.owner import claim, reap_abandoned
from devtools.localcp.prometheus import write_targets


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "integration: needs a real component (kube-apiserver, dex, ...)")
    config.addinivalue_line("markers", "cluster: needs the local control plane")


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _fail(component: str, exc: BaseException) -> None:
    where = " (CI)" if _in_ci() else ""
    pytest.fail(f"local control plane component failed to start{where}: {component}\n{exc}", pytrace=False)


@pytest.fixture(scope="session")
def local_control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalControlPlane]:
    """A running LocalControlPlane (host + members), stopped at session end if this fixture started it."""
    members = int(os.environ.get("PINCONSOLE_TEST_MEMBERS", "2"))
    nodes = int(os.environ.get("PINCONSOLE_TEST_NODES", "20"))
    env_dir = os.environ.get("PINCONSOLE_TEST_STATE_DIR")
    if env_dir:
        state_dir = Path(env_dir)
        layout = read_layout(state_dir)
        if layout is not None:
            members = sum(1 for c in layout.clusters if c.role == "member")
    else:
        # A killed earlier session left its control plane running (its down() never ran): stop it first.
        # Under pytest-xdist each worker's temp dir is one level deeper (pytest-N/popen-gwK).
        base = tmp_path_factory.getbasetemp()
        root = base.parent.parent if os.environ.get("PYTEST_XDIST_WORKER") else base.parent
        for pattern in ("pytest-*/localcp*", "pytest-*/popen-gw*/localcp*"):
            reap_abandoned(root, pattern)
        state_dir = tmp_path_factory.mktemp("localcp")
        claim(state_dir)
    archive = os.environ.get("LOG_ARCHIVE_URL", "")  # the session's VictoriaLogs (plugin.py), when it runs one
    cp = LocalControlPlane(state_dir, members=members, nodes_per_member=nodes, log_archive_url=archive)
    already_running = bool(env_dir) and cp.is_healthy()
    try:
        cp.up()
    except ComponentError as exc:
        _fail(exc.component, exc)
    except BinariesMissing as exc:
        _fail("binaries", exc)
    targets = os.environ.get("PROMETHEUS_TARGETS_FILE")  # the session's Prometheus (plugin.py), when it runs one
    if targets:
        write_targets(Path(targets), cp.clusters)
    try:
        yield cp
    finally:
        if not already_running:
            leftover = cp.down()
            if leftover:
                pytest.fail("processes left after down():\n" + "\n".join(leftover), pytrace=False)


@pytest.fixture(scope="session")
def cluster_api_clients(local_control_plane: LocalControlPlane) -> Iterator[dict[str, client.ApiClient]]:
    """{cluster name: ApiClient} for every cluster (host and members), from the kubeconfig contexts."""
    kubeconfig = str(local_control_plane.kubeconfig_path)
    clients = {c.name: api_client(kubeconfig, c.context) for c in local_control_plane.clusters}
    yield clients
    for api in clients.values():
        api.close()


@pytest.fixture(scope="session")
def member_api_clients(
    cluster_api_clients: dict[str, client.ApiClient], local_control_plane: LocalControlPlane
) -> dict[str, client.ApiClient]:
    """{member cluster name: ApiClient}; never the global default kubernetes configuration."""
    members = {c.name for c in local_control_plane.clusters if c.role == "member"}
    return {name: api for name, api in cluster_api_clients.items() if name in members}


@pytest.fixture(scope="session")
def dex_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DexServer]:
    """A running dex (default users admin@example.com / dev@example.com, password ``password``)."""
    dex = DexServer(tmp_path_factory.mktemp("dex"))
    try:
        dex.start()
    except ComponentError as exc:
        _fail("dex", exc)
    except BinariesMissing as exc:
        _fail("binaries", exc)
    try:
        yield dex
    finally:
        dex.stop()
