"""PostgreSQL through psycopg's connection pool (``console.settings``: ``DATABASE_POOL_MAX_SIZE``).

Every request and every websocket's ``database_sync_to_async`` call runs on a thread of its own; each borrows a
connection from the process's pool and gives it back when Django closes it (the end of the request or call), so no
request opens a connection of its own and none stays lent after a request or a socket ends (a lent one would also
keep the test database from being dropped at the end of the session)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.db import connection
from django.test import Client

from console.asgi import application
from tests.support.debugging import close_thread_connections, ws_headers  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[2]
PROD_ENV = {"DEBUG": "false", "SECRET_KEY": "p" * 64, "ALLOWED_HOSTS": "portal.example.com"}
POSTGRES = "postgres://u:p@db.example.com/pinconsole"


def _database_settings(**env: str) -> Any:
    """``DATABASES["default"]`` as a fresh process computes it from ``env``, or the error it fails with."""
    code = (
        "import json,django;django.setup();from django.conf import settings as s;"
        "d=s.DATABASES['default'];print(json.dumps({k:d[k] for k in ('ENGINE','CONN_MAX_AGE','OPTIONS')}))"
    )
    dropped = ("DATABASE_", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    done = subprocess.run(
        [sys.executable, "-c", code], env={**clean, **PROD_ENV, **env}, capture_output=True, text=True, cwd=ROOT
    )
    return json.loads(done.stdout) if done.returncode == 0 else done.stderr


def test_postgres_uses_the_pool_by_default():
    found = _database_settings(DATABASE_URL=POSTGRES)

    assert found["OPTIONS"]["pool"] == {"min_size": 2, "max_size": 20, "timeout": 5, "name": "pinconsole"}
    assert found["OPTIONS"]["connect_timeout"] == 3  # an unreachable database is noticed in seconds
    assert found["CONN_MAX_AGE"] == 0  # the pool hands connections back: nothing persists per thread


def test_the_pool_is_sized_by_the_environment_and_can_be_turned_off():
    sized = _database_settings(DATABASE_URL=POSTGRES, DATABASE_POOL_MAX_SIZE="8", DATABASE_POOL_TIMEOUT="5")
    off = _database_settings(DATABASE_URL=POSTGRES, DATABASE_POOL_MAX_SIZE="0", DATABASE_CONN_MAX_AGE="60")

    assert (sized["OPTIONS"]["pool"]["max_size"], sized["OPTIONS"]["pool"]["timeout"]) == (8, 5)
    assert "pool" not in off["OPTIONS"]
    assert off["CONN_MAX_AGE"] == 60


def test_persistent_connections_and_the_pool_exclude_each_other():
    refused = _database_settings(DATABASE_URL=POSTGRES, DATABASE_CONN_MAX_AGE="60")

    assert "DATABASE_CONN_MAX_AGE needs DATABASE_POOL_MAX_SIZE=0" in refused


def test_sqlite_has_no_pool(tmp_path):
    found = _database_settings(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")

    assert found["ENGINE"] == "django.db.backends.sqlite3"
    assert "pool" not in found["OPTIONS"]


# -- the running portal's pool (the suite runs on PostgreSQL) -----------------------------------------------------


def _pool() -> Any:
    pool = connection.pool
    assert pool is not None, "the suite's PostgreSQL connection has no pool"
    return pool


def _lent() -> int:
    stats = _pool().get_stats()
    return stats["pool_size"] - stats["pool_available"]


def _scope(kind: str, path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """An ASGI scope for the application itself: channels' test communicators turn Channels' closing of a thread's
    database connections into a no-op (``channels.testing.application``), which is what these tests look at."""
    return {
        "type": kind,
        "path": path,
        "query_string": b"",
        "headers": [*([] if any(name == b"host" for name, _ in headers) else [(b"host", b"testserver")]), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        **({"http_version": "1.1", "scheme": "http"} if kind == "http" else {"subprotocols": []}),
    }


def _settle(before: int, within: float = 10) -> int:
    """The lent count once it is back to ``before`` (a thread gives its connection back as its request ends)."""
    deadline = time.monotonic() + within
    while (now := _lent()) != before and time.monotonic() < deadline:
        time.sleep(0.05)
    return now


@pytest.mark.django_db(transaction=True)
def test_requests_borrow_a_pooled_connection_and_give_it_back(user):
    browser = Client()
    browser.force_login(user)
    cookie = f"sessionid={browser.cookies['sessionid'].value}".encode()
    connection.close()  # this thread's own connection goes back to the pool too
    _pool().wait(timeout=10)  # its first connections opened
    before, lent = _pool().get_stats(), _lent()

    async def get() -> int:
        comm = ApplicationCommunicator(application, _scope("http", "/", [(b"cookie", cookie)]) | {"method": "GET"})
        await comm.send_input({"type": "http.request", "body": b""})
        status = (await comm.receive_output(timeout=20))["status"]
        await comm.receive_output(timeout=20)  # the body
        await comm.wait(timeout=20)  # the app runs on to response.close(): request_finished gives the connection back
        return status

    statuses = [async_to_sync(get)() for _ in range(10)]  # the ASGI app: each request on a thread of its own
    after = _pool().get_stats()

    assert statuses == [200] * 10
    assert _settle(lent) == lent
    assert after.get("requests_num", 0) - before.get("requests_num", 0) >= 10  # each request borrowed one
    assert after.get("connections_num", 0) - before.get("connections_num", 0) <= 2  # not a new one each


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")  # the one ws_headers' thread borrowed
async def test_a_websocket_gives_back_what_its_thread_borrowed(user):
    headers = await sync_to_async(ws_headers)(user)
    lent = _lent()
    requests_before = _pool().get_stats().get("requests_num", 0)

    # Session, user, the pod's project and the refusal's audit row: database calls on the socket's own thread.
    comm = ApplicationCommunicator(
        application, _scope("websocket", "/ws/logs/member-x/proj-nowhere/web-1/app/", headers)
    )
    await comm.send_input({"type": "websocket.connect"})
    if (await comm.receive_output(timeout=20))["type"] == "websocket.accept":
        await comm.receive_output(timeout=20)  # the refusal
    await comm.send_input({"type": "websocket.disconnect", "code": 1000})
    await comm.wait(timeout=20)

    assert _pool().get_stats().get("requests_num", 0) > requests_before
    assert await sync_to_async(_settle, thread_sensitive=False)(lent) == lent


# -- a real uvicorn with a small pool: many more requests and sockets than connections ---------------------------


@pytest.fixture
def small_pool_portal(tmp_path) -> Any:
    """uvicorn serving the portal on the test database with a pool of 3 connections that waits at most 10 s."""
    from django.conf import settings

    from tests.harness.portalproc import portal_process
    from tests.support.provisioning import subprocess_env

    env = subprocess_env(
        DATABASE_POOL_MAX_SIZE="3",
        DATABASE_POOL_TIMEOUT="10",
        SECRET_KEY=settings.SECRET_KEY,  # the session this test signs must verify there
        ALLOWED_HOSTS="127.0.0.1",
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        WATCH_CACHE_ENABLED="false",
        PINCONSOLE_DEV_LOGIN="true",
    )
    with portal_process(env, tmp_path / "portal.log") as served:
        yield served
    logged = (tmp_path / "portal.log").read_text()
    assert "Internal Server Error" not in logged and "Exception in ASGI application" not in logged, logged


def _portal_connections(pid: int) -> int:
    """The portal process's connections to the test database, as PostgreSQL counts them (its sockets' peers)."""
    import psutil

    port = int(connection.settings_dict["PORT"] or 5432)
    return sum(1 for c in psutil.Process(pid).net_connections("tcp") if c.raddr and c.raddr.port == port)


@pytest.mark.django_db(transaction=True)
def test_a_small_pool_serves_many_concurrent_requests_and_sockets(small_pool_portal, user):
    from concurrent.futures import ThreadPoolExecutor

    import httpx
    from websockets.sync.client import connect

    url, pid = small_pool_portal
    browser = Client()
    browser.force_login(user)
    cookie = {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"}

    def page(_: int) -> int:
        return httpx.get(f"{url}/", headers=cookie, timeout=60).status_code

    def socket(_: int) -> str:
        ws_url = url.replace("http://", "ws://") + "/ws/logs/member-x/proj-nowhere/web-1/app/"
        with connect(ws_url, additional_headers=cookie, origin=url, open_timeout=60) as ws:
            return json.loads(ws.recv(timeout=60))["state"]  # refused: session, user, project, audit rows

    with ThreadPoolExecutor(16) as pool:
        first = list(pool.map(page, range(40)))
        refused = list(pool.map(socket, range(20)))
        after = list(pool.map(page, range(40)))  # a socket that kept its connection would starve these

    assert first == after == [200] * 40
    assert refused == ["error"] * 20
    assert _portal_connections(pid) <= 3
