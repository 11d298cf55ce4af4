"""The portal's scrape-time state against the real local control plane: a shell and a log stream open on a real pod
move the open-sessions gauge (and closing them moves it back); the member's watch cache (objects, memory estimate,
staleness, synced) and its circuit breaker are read when scraped."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.test import Client

from console.asgi import application
from tests.support.debugging import member, ws_headers
from tests.support.metrics import families, value
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]
TOKEN = "scrape-token-live-0123456789"
OPEN = "pinconsole_debug_sessions_open"


@pytest.fixture
def scrape(settings) -> Any:
    settings.METRICS_TOKEN = TOKEN

    def read() -> dict:
        response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
        assert response.status_code == 200
        return families(response.content.decode())

    return database_sync_to_async(read)


async def opened(path: str, user: Any) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, path, headers=ws_headers(user))
    assert (await comm.connect(timeout=20))[0]
    status = await comm.receive_json_from(timeout=20)
    assert status["state"] == "connected", status
    return comm


async def test_open_shells_and_log_streams_are_a_gauge_by_kind(live_pods, project, user, scrape):
    await sync_to_async(member)(project, user, "developer")
    pod = f"{project.namespace}/{live_pods['names'][0]}/app"
    before = await scrape()

    shell = await opened(f"/ws/exec/member-a/{pod}/", user)
    logs = await opened(f"/ws/logs/member-a/{pod}/", user)
    during = await scrape()
    await shell.disconnect()
    await logs.disconnect()
    after = await scrape()

    assert during[OPEN].type == "gauge"
    for kind in ("shell", "logs"):
        assert value(during, OPEN, kind=kind) == value(before, OPEN, kind=kind) + 1, kind
        assert value(after, OPEN, kind=kind) == value(before, OPEN, kind=kind), kind


async def test_the_member_watch_cache_and_breaker_are_read_when_scraped(live_pods, scrape):
    deadline = time.monotonic() + 60
    while value(found := await scrape(), "pinconsole_watch_cache_synced", cluster="member-a") != 1:
        assert time.monotonic() < deadline, "member-a's cache never reported synced"  # CRD watches list after pods
        await asyncio.sleep(0.5)

    assert value(found, "pinconsole_watch_cache_objects", cluster="member-a", kind="pods") >= len(live_pods["names"])
    assert value(found, "pinconsole_watch_cache_objects", cluster="member-a", kind="nodes") == 20
    assert value(found, "pinconsole_watch_cache_memory_bytes", cluster="member-a") > 0
    assert 0 <= value(found, "pinconsole_watch_cache_staleness_seconds", cluster="member-a") < 60
    breaker = {
        s.labels["state"]: s.value
        for s in found["pinconsole_cluster_breaker_state"].samples
        if s.labels["cluster"] == "member-a"
    }
    assert breaker == {"closed": 1.0, "half_open": 0.0, "open": 0.0}
    for name in (
        "pinconsole_watch_cache_objects",
        "pinconsole_watch_cache_memory_bytes",
        "pinconsole_cluster_breaker_state",
    ):
        assert found[name].type == "gauge"
