"""The portal's HTTP handler (``console.httphandler``): Django's ASGI handler with the synchronous middleware chain
entered once per request; every middleware and the view still run, in one thread per request, taken from a fixed
pool (``console.syncthreads``) instead of a thread started for every request."""

from __future__ import annotations

import threading

import pytest
from asgiref.sync import SyncToAsync, async_to_sync
from asgiref.testing import ApplicationCommunicator

from base.bodies import BodyLimit
from console.asgi import application
from console.httphandler import SyncChainASGIHandler
from console.syncthreads import SyncThreadPool


def _http_pool() -> SyncThreadPool:
    """The thread pool under the body limit (base.bodies), the outermost layer of every HTTP request."""
    limit = application.application_mapping["http"]
    assert isinstance(limit, BodyLimit)
    return limit.app  # type: ignore[return-value]


def test_the_chain_is_entered_once():
    pool = _http_pool()
    handler = pool.app

    assert isinstance(pool, SyncThreadPool) and isinstance(handler, SyncChainASGIHandler)
    assert isinstance(handler._middleware_chain, SyncToAsync)  # one crossing into the request's thread


@pytest.mark.django_db(transaction=True)
def test_a_page_passes_every_middleware_and_its_view_in_one_thread(monkeypatch):
    from base import requestid

    threads: list[int] = []
    names: list[str] = []
    real = requestid.RequestIdMiddleware.__call__

    def outermost(self, request):  # the first middleware
        threads.append(threading.get_ident())
        names.append(threading.current_thread().name)
        return real(self, request)

    monkeypatch.setattr(requestid.RequestIdMiddleware, "__call__", outermost)

    async def get() -> dict:
        scope = {
            "type": "http",
            "method": "GET",
            "path": "/login/",
            "query_string": b"",
            "headers": [(b"host", b"testserver")],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
            "http_version": "1.1",
            "scheme": "http",
        }
        comm = ApplicationCommunicator(application, scope)
        await comm.send_input({"type": "http.request", "body": b""})
        start = await comm.receive_output(timeout=20)
        body = await comm.receive_output(timeout=20)
        await comm.wait(timeout=20)
        return {"status": start["status"], "headers": dict(start["headers"]), "body": body["body"]}

    got = async_to_sync(get)()
    pool_size = len(_http_pool().threads)
    for _ in range(pool_size + 5):
        async_to_sync(get)()

    assert got["status"] == 200
    assert b"X-Request-ID" in got["headers"]  # the outermost middleware
    assert b"Content-Security-Policy" in got["headers"]  # django-csp
    assert got["headers"][b"X-Frame-Options"] == b"DENY"  # clickjacking, inner
    assert b"csrfmiddlewaretoken" in got["body"]  # the view's form, CSRF middleware's token
    assert threads[0] != threading.get_ident() and names[0].startswith("http-sync-")
    assert len(set(threads)) <= pool_size  # pool threads, reused: not a new thread per request


def test_the_objects_loaded_at_startup_are_out_of_the_cyclic_gcs_reach():
    import gc

    assert gc.get_freeze_count() > 10_000  # console.asgi froze Django, the apps and their modules
