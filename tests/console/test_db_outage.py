"""The database unreachable under a served portal: a dependency outage, answered 503 with Retry-After within a few
seconds (``DATABASE_POOL_TIMEOUT``, ``DATABASE_CONNECT_TIMEOUT``), on pages (the 503 page, or a toast for an htmx
partial) and on the API (the one JSON error body), never a 500 after half a minute. /readyz says the process cannot
serve; /healthz (liveness) still answers: restarting the pod would not bring the database back."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.harness.portalproc import portal_process
from tests.harness.services import free_port

BOUND_SECONDS = 10.0  # the defaults: the pool waits 5 s for a connection, a connection attempt 3 s for an answer


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A database host that takes connections and never answers (a hung server, a black-holed route)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    yield listener.getsockname()[1]
    listener.close()


def _portal(tmp_path, database_url: str, **env: str) -> Any:
    from django.conf import settings

    from tests.support.provisioning import subprocess_env

    served = subprocess_env(
        DATABASE_URL=database_url,
        SECRET_KEY=settings.SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1",
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        WATCH_CACHE_ENABLED="false",
        READYZ_PROBE_TOKEN="probe-secret",
        **env,
    )
    for name in ("DATABASE_POOL_TIMEOUT", "DATABASE_CONNECT_TIMEOUT", "DATABASE_POOL_MAX_SIZE"):
        if name not in env:
            served.pop(name, None)  # the defaults are what is tested
    return portal_process(served, tmp_path / "portal.log")


SESSION = {"Cookie": "sessionid=" + "s" * 32}
REQUESTS: list[tuple[str, dict[str, str]]] = [
    ("/", SESSION),
    ("/projects/", {**SESSION, "HX-Request": "true"}),
    ("/api/v1/me/", {"Authorization": "Bearer pct_" + "t" * 40}),
    ("/api/v1/workloads/", SESSION),
    ("/readyz", {"Authorization": "Bearer probe-secret"}),
]


def _ask(url: str) -> dict[str, tuple[httpx.Response, float]]:
    def one(request: tuple[str, dict[str, str]]) -> tuple[httpx.Response, float]:
        path, headers = request
        start = time.monotonic()
        response = httpx.get(f"{url}{path}", headers=headers, timeout=60)
        return response, time.monotonic() - start

    with ThreadPoolExecutor(len(REQUESTS)) as pool:
        return dict(zip([p for p, _ in REQUESTS], pool.map(one, REQUESTS), strict=True))


def _assert_unavailable(answers: dict[str, tuple[httpx.Response, float]]) -> None:
    for path, (response, took) in answers.items():
        assert response.status_code == 503, (path, response.status_code, response.text[:300])
        assert took < BOUND_SECONDS, (path, took)
    page = answers["/"][0]
    assert int(page.headers["Retry-After"]) >= 1 and 'data-error-page="true"' in page.text
    partial = answers["/projects/"][0]
    assert partial.headers["HX-Reswap"] == "none" and "unavailable" in partial.headers["HX-Trigger"]
    for path in ("/api/v1/me/", "/api/v1/workloads/"):
        response = answers[path][0]
        error = response.json()["error"]
        assert error["code"] == "unavailable" and error["status"] == 503, (path, error)
        assert "database" in error["message"].lower() and int(response.headers["Retry-After"]) >= 1
        assert "127.0.0.1" not in response.text  # the driver's text names the server: logged, never answered
    ready, took = answers["/readyz"]
    assert ready.json()["status"] == "unavailable" and ready.json()["failed"] == ["database"], ready.json()
    assert took < 4.0, took  # within the chart's readinessProbe.timeoutSeconds (5), whatever the pool waits


@pytest.mark.parametrize("pool_size", ["20", "0"], ids=["pooled", "no-pool"])
def test_a_refused_database_is_a_503_within_seconds(tmp_path, pool_size):
    closed = free_port()  # nothing listens: connections are refused
    database_url = f"postgres://pinconsole@127.0.0.1:{closed}/pinconsole"
    with _portal(tmp_path, database_url, DATABASE_POOL_MAX_SIZE=pool_size) as (url, _):
        answers = _ask(url)
        alive = httpx.get(f"{url}/healthz", timeout=5)

    _assert_unavailable(answers)
    assert alive.status_code == 200
    assert "Internal Server Error" not in (tmp_path / "portal.log").read_text()


@pytest.mark.parametrize("pool_size", ["20", "0"], ids=["pooled", "no-pool"])
def test_a_database_that_never_answers_is_a_503_within_seconds(tmp_path, silent_port, pool_size):
    with _portal(
        tmp_path, f"postgres://pinconsole@127.0.0.1:{silent_port}/pinconsole", DATABASE_POOL_MAX_SIZE=pool_size
    ) as (url, _):
        answers = _ask(url)

    _assert_unavailable(answers)


@pytest.mark.parametrize(
    "error",
    [
        "django.db.OperationalError",
        "django.db.InterfaceError",
        "psycopg_pool.PoolTimeout",
        "psycopg.OperationalError",
    ],
)
def test_each_database_outage_error_is_unavailable_on_the_api_and_pages(rf, error):
    import importlib

    from base.api import api_exception_handler
    from base.middleware import ServiceErrorMiddleware

    module, name = error.rsplit(".", 1)
    exc = getattr(importlib.import_module(module), name)("connection to server at 10.0.0.5 failed")

    api = api_exception_handler(exc, {})
    page = ServiceErrorMiddleware(lambda request: None).process_exception(rf.get("/projects/"), exc)

    assert api is not None and api.status_code == 503 and api.data["error"]["code"] == "unavailable"
    assert api["Retry-After"] == "5" and "10.0.0.5" not in str(api.data)
    assert page is not None and page.status_code == 503 and page["Retry-After"] == "5"
    assert b'data-error-page="true"' in page.content and b"10.0.0.5" not in page.content


def test_other_errors_stay_500s(rf):
    from base.api import api_exception_handler
    from base.middleware import ServiceErrorMiddleware

    assert api_exception_handler(ValueError("x"), {}) is None
    assert ServiceErrorMiddleware(lambda request: None).process_exception(rf.get("/"), ValueError("x")) is None


@pytest.mark.parametrize("path", ["/projects/", "/api/v1/me/"])
def test_a_database_error_outside_any_view_is_a_503_not_a_500(rf, path):
    """Raised by middleware (the session or the user read), it reaches Django's 500 handler, not a view's."""
    from django.db import OperationalError

    from console.views.errors import server_error

    try:
        raise OperationalError("connection to server at 10.0.0.5 failed")
    except OperationalError:
        response = server_error(rf.get(path))

    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert b"10.0.0.5" not in response.content and b"unavailable" in response.content.lower()


def test_any_other_error_outside_a_view_stays_a_500(rf):
    from console.views.errors import server_error

    try:
        raise ValueError("x")
    except ValueError:
        assert server_error(rf.get("/projects/")).status_code == 500
