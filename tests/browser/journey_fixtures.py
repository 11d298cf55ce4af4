"""Fixtures for the workload journey in a browser: the registry's host and members with the platform installed
(tests/integration/provisioning), the federation operator as a subprocess, a project with a developer and an
OnDemand grant, and that developer signed in. The live server runs in this process, so the pages read the same
host and member caches the registry fixtures started."""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path

import pytest

from base.errors import NotFound
from clusters import runtime
from devtools.devstack import sync_member_clusters
from devtools.operator_process import OperatorProcess
from devtools.waiting import wait_for
from tests.integration.provisioning.conftest import (  # noqa: F401 - fixtures, used by name
    eager_tasks,
    federation,
    onboard,
    pools,
    register,
)
from workloads import host
from workloads.core.kinds import KINDS

PASSWORD = "pw-journey-Secret!"


@pytest.fixture
def created() -> list[tuple[str, str, str]]:
    """(kind, namespace, name) of every workload the test expects on the host: deleted afterwards."""
    return []


@pytest.fixture
def operator(federation, local_control_plane, tmp_path, created):  # noqa: F811
    """The federation controller on the registry's clusters, once the host holds a MemberCluster per member.
    Afterwards every workload the test made is deleted and its shards are gone (later tests place afresh)."""
    sync_member_clusters()
    lease = f"journey-{uuid.uuid4().hex[:6]}"
    proc = OperatorProcess(Path(local_control_plane.kubeconfig_path), tmp_path, "journey-fed", lease, federation=True)
    proc.start()
    wait_for(lambda: proc.metrics().get("leading") == 1.0, 60, what="federation operator leading")
    yield proc
    for kind, namespace, name in created:
        with contextlib.suppress(NotFound):
            host.delete(kind, namespace, name)

    def shards_left() -> list[str]:
        return [
            f"{cluster}:{kind}/{name}"
            for kind, namespace, name in created
            for cluster, cache in runtime.member_caches().items()
            if cache.get(KINDS[kind].plural, namespace, name)
        ]

    wait_for(lambda: not shards_left(), 120, interval=0.5, what="every shard removed")
    assert proc.terminate() == 0, proc.log()


@pytest.fixture
def project(federation, admin_user, user):  # noqa: F811
    """A project onboarded through the product, ``user`` its developer, with room for a few small replicas."""
    return onboard(
        f"journey-{uuid.uuid4().hex[:6]}",
        admin_user,
        members=[("user", admin_user.username, "owner"), ("user", user.username, "developer")],
        grants={"ondemand": ("8", "16Gi", "0", "0")},
    )


@pytest.fixture
def developer_page(page, live_server, user):
    """``page`` signed in as the project's developer through the dev password form."""
    user.set_password(PASSWORD)
    user.save()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", user.get_username())
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return page
