"""Fixtures for the debugging tests: one project per fixture, members by role, websocket headers."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from clusters.models import Cluster
from projects.models import Membership, Project
from tests.fakes import FilledCache, fake_pod

ORIGIN = b"http://127.0.0.1"


@pytest.fixture
def project(db: Any) -> Project:
    return Project.objects.create(name="ads", team="ads", cost_center="CC-1")


@pytest.fixture
def other_project(db: Any) -> Project:
    return Project.objects.create(name="ml", team="ml", cost_center="CC-2")


def member(project: Project, user: Any, role: str) -> Membership:
    return Membership.objects.create(project=project, user=user, role=role)


def ws_headers(user: Any | None, origin: bytes = ORIGIN) -> list[tuple[bytes, bytes]]:
    """Headers of a browser websocket handshake: Origin plus the session cookie of a force_login."""
    headers = [(b"origin", origin)]
    if user is not None:
        client = Client()
        client.force_login(user)
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    return headers


@pytest.fixture
def fake_member(db: Any, monkeypatch: pytest.MonkeyPatch) -> FilledCache:
    """A member cluster `member-x` whose cache holds proj-ads/web-1 (container app) and proj-ml/train-1."""
    Cluster.objects.create(name="member-x", region="r", zone="r-a", role="member", api_server="https://127.0.0.1:1")
    cache = FilledCache(
        {
            "pods": [
                fake_pod("web-1", "proj-ads", labels={"pincompute.io/workload": "web"}),
                fake_pod("train-1", "proj-ml"),
            ]
        }
    )
    monkeypatch.setattr("clusters.runtime.member_caches", lambda: {"member-x": cache})
    return cache


@pytest.fixture
async def close_thread_connections() -> Any:
    """Consumers reach the ORM from asgiref's sync thread; close that thread's connections afterwards
    so the test database can be dropped at the end of the session."""
    from channels.db import database_sync_to_async
    from django.db import connections

    yield
    await database_sync_to_async(connections.close_all)()
