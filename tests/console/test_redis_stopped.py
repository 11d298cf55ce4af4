"""Redis stopped under a running portal (a real uvicorn process on the test database whose Redis is down): the pages
and API reads that do not need it work, writes that queue work still commit (the reconcile pass queues it later),
live sockets are refused with a close code that says why, and nothing answers 500."""

from __future__ import annotations

from collections.abc import Iterator
from http.cookies import SimpleCookie

import httpx
import pytest
from django.conf import settings

from accounts.services import create_api_token
from projects.models import ClusterProvisioning, Project
from tests.harness.portalproc import portal_process
from tests.harness.services import free_port
from tests.support.factories import make_project
from tests.support.provisioning import subprocess_env
from tests.support.sessions import session_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def portal(tmp_path) -> Iterator[str]:
    """uvicorn serving the portal with REDIS_URL pointing at a port where no Redis listens (a stopped Redis)."""
    dead = free_port()
    env = subprocess_env(
        REDIS_URL=f"redis://127.0.0.1:{dead}/0",
        SECRET_KEY=settings.SECRET_KEY,  # the sessions this test signs must verify there
        ALLOWED_HOSTS="127.0.0.1",
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        WATCH_CACHE_ENABLED="false",
        PINCONSOLE_DEV_LOGIN="true",  # the ModelBackend the test session names
    )
    with portal_process(env, tmp_path / "portal.log") as (url, _):
        yield url
    logged = (tmp_path / "portal.log").read_text()
    assert "Internal Server Error" not in logged and "Exception in ASGI application" not in logged, logged


def test_pages_and_api_reads_work_and_nothing_answers_500(portal, user, admin_user):
    project = make_project("ads", user)
    cookies = session_for(user)
    token = create_api_token(user=user, name="cli", days=1)[1]
    api = {"Authorization": f"Bearer {token}"}

    with httpx.Client(base_url=portal, cookies=cookies, timeout=30) as http:
        for path in ("/", "/projects/", f"/projects/{project.name}/", "/workloads/", "/tokens/"):
            got = http.get(path)
            assert got.status_code == 200, (path, got.headers.get("location"))
        for path in ("/api/v1/", "/api/v1/me/", "/api/v1/workloads/", f"/api/v1/projects/{project.name}/"):
            response = http.get(path, headers=api)
            assert response.status_code == 200, (path, response.text[:300])
        ready = httpx.get(f"{portal}/readyz", timeout=30)
    with httpx.Client(base_url=portal, cookies=session_for(admin_user), timeout=30) as http:
        assert http.get("/clusters/").status_code == http.get("/audit/").status_code == 200
        details = http.get("/readyz").json()

    assert ready.status_code == 200 and ready.json() == {"status": "degraded"}  # still serving
    assert set(details["degraded"]) == {"channel_layer", "broker"} and details["failed"] == []


def test_writes_that_queue_work_or_notify_sockets_commit_without_redis(portal, admin_user, user):
    from tests.support.factories import make_cluster

    make_cluster("member-a")
    cookies = session_for(admin_user)
    with httpx.Client(base_url=portal, cookies=cookies, timeout=30) as http:
        page = http.get("/tokens/")
        csrf = SimpleCookie(page.headers.get("set-cookie", "")).get("csrftoken")
        token = csrf.value if csrf else http.cookies.get("csrftoken", "")
        created = http.post(
            "/api/v1/projects/",
            json={
                "name": "queued",
                "team": "ads",
                "cost_center": "CC-1",
                "members": [
                    {"kind": "user", "name": admin_user.username, "role": "owner"},
                    {"kind": "user", "name": user.username, "role": "developer"},
                ],
            },
            headers={"X-CSRFToken": token, "Referer": portal + "/"},
        )
        removed = http.delete(  # tells the removed member's open sockets through Redis (down)
            f"/api/v1/projects/queued/members/user/{user.username}/",
            headers={"X-CSRFToken": token, "Referer": portal + "/"},
        )

    assert created.status_code == 201, created.text[:500]
    project = Project.objects.get(name="queued")
    assert not ClusterProvisioning.objects.filter(project=project, state="ready").exists()
    assert removed.status_code == 204, removed.text[:500]
    assert not project.memberships.filter(user=user).exists()


def test_a_terminal_is_told_why_it_cannot_connect(portal, user):
    """The browser's shell and log sockets: accepted, a status naming Redis, closed 4503 (not a bare 1011)."""
    import asyncio
    import json

    import websockets

    project = make_project("ads", user)
    cookie = "; ".join(f"{k}={v}" for k, v in session_for(user).items())
    ws_url = portal.replace("http://", "ws://")

    async def attempt(path: str) -> tuple[dict, int | None, str]:
        headers = {"Cookie": cookie, "Origin": portal}
        async with websockets.connect(f"{ws_url}{path}", additional_headers=headers) as socket:
            status = json.loads(await asyncio.wait_for(socket.recv(), 10))
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(socket.recv(), 10)
            return status, socket.close_code, socket.close_reason

    for path in (
        f"/ws/exec/member-a/{project.namespace}/web-1/app/",
        f"/ws/logs/member-a/{project.namespace}/web-1/app/",
    ):
        status, code, reason = asyncio.run(attempt(path))
        assert code == 4503 and "Redis" in reason, (path, code, reason)
        assert status["state"] == "error" and "cannot reach Redis" in status["message"]
