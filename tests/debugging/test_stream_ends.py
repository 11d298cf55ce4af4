"""How log streams end and what they refuse, without a live cluster (probe round 2, items 9-12): a file log with
``follow=0`` runs ``tail`` without ``-F``; a member apiserver that cannot be reached closes 4502 with a message that
names it (console, file and selector streams), never 1000; ``previous=1`` on a container that never restarted is
4404 with a clean message; a malformed selector and ``file`` on a selector stream are 4400 while an undeclared file
stays 4403 for a viewer; a workload that does not exist is 4404 and one with no pods yet stays open; a stream that
ends after its client left ends its session instead of leaving an exception no one retrieves."""

from __future__ import annotations

import asyncio
import socket
from types import SimpleNamespace
from typing import Any

import pytest
from channels.db import database_sync_to_async
from kubernetes import client as k8s
from uvicorn.protocols.utils import ClientDisconnected

from console.asgi import application
from debugging.logs.consumer import LogConsumer
from debugging.logs.files import tail_command
from debugging.logs.options import parse_log_options
from debugging.logs.streams import LineBuffer
from debugging.models import DebugSession
from debugging.upstream import StreamFailure, refused
from tests.support.debugging import closed_with, member, ws_headers
from tests.support.fakes import FilledCache, fake_pod
from tests.support.wsclient import WebsocketCommunicator

LOGS = "/ws/logs/member-x/proj-ads/web-1/app/"

# --- building blocks


def test_a_file_without_follow_is_tailed_without_F():
    assert tail_command("/var/log/app.log", 2, follow=False) == ["tail", "-n", "2", "--", "/var/log/app.log"]
    assert "-F" in tail_command("/var/log/app.log", 2)


def test_failures_name_the_cluster_and_keep_a_runtimes_wording_out_of_previous():
    kwok = refused(400, 'failed to tail 2 lines of log file ".": seek .: invalid argument', previous=True)
    unreachable = StreamFailure(4502, "Could not reach {apiserver}", "ConnectTimeout")

    assert kwok.code == 4404 and "seek" not in kwok.message("member-b") and "No previous container" in kwok.message()
    assert unreachable.message("member-b") == "Could not reach member-b's apiserver: ConnectTimeout"
    assert refused(500, "boom").code == 4502 and refused(404, "pods x not found").code == 4404


# --- through the websocket


@pytest.fixture
def unreachable_apiserver(monkeypatch: pytest.MonkeyPatch) -> int:
    """The member's apiserver address is a closed port: every log follow and exec fails to connect."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    api = k8s.ApiClient(k8s.Configuration(host=f"https://127.0.0.1:{port}"))
    monkeypatch.setattr("debugging.logs.consumer.api_for", lambda cluster: api)
    return port


async def open_and_close(path: str, headers: Any, timeout: float = 15) -> tuple[list[dict[str, Any]], int]:
    comm = WebsocketCommunicator(application, path, headers=headers)
    assert (await comm.connect(timeout=10))[0]
    return await closed_with(comm, timeout=timeout)


@pytest.mark.parametrize(
    "query", ["?tail=2", "?tail=2&file=/var/log/app.log", "?tail=2&follow=0", "?tail=2&file=/var/log/app.log&follow=0"]
)
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_an_unreachable_apiserver_closes_4502_naming_the_member(
    fake_member, unreachable_apiserver, project, user, query
):
    await database_sync_to_async(member)(project, user, "viewer")

    seen, code = await open_and_close(LOGS + query, await database_sync_to_async(ws_headers)(user))

    assert code == 4502, seen
    assert seen[-1]["state"] == "error" and seen[-1]["message"].startswith("Could not reach member-x's apiserver: ")
    row = await database_sync_to_async(DebugSession.objects.get)()
    assert row.close_code == 4502 and "Could not reach" in row.end_reason


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_selector_stream_whose_every_log_failed_closes_4502(fake_member, unreachable_apiserver, project, user):
    await database_sync_to_async(member)(project, user, "viewer")

    seen, code = await open_and_close(
        "/ws/logs/member-x/proj-ads/?selector=pincompute.io/workload=web",
        await database_sync_to_async(ws_headers)(user),
    )

    assert code == 4502 and "Could not reach member-x's apiserver" in seen[-1]["message"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_previous_of_a_container_that_never_restarted_is_4404(fake_member, unreachable_apiserver, project, user):
    await database_sync_to_async(member)(project, user, "viewer")
    restarted = fake_pod("web-2", "proj-ads")
    restarted["status"]["containerStatuses"] = [{"name": "app", "restartCount": 1}]
    fake_member.put("pods", restarted)
    headers = await database_sync_to_async(ws_headers)(user)

    seen, code = await open_and_close(LOGS + "?previous=1&tail=2", headers)
    _, read_code = await open_and_close("/ws/logs/member-x/proj-ads/web-2/app/?previous=1&tail=2", headers)

    assert code == 4404 and seen[-1]["message"].startswith("No previous container: app in web-1 has not restarted")
    assert read_code == 4502  # one that restarted is read (here: its apiserver is down)
    assert await database_sync_to_async(DebugSession.objects.count)() == 1  # the refusal opened no session


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/ws/logs/member-x/proj-ads/?selector=!!!", 4400),
        ("/ws/logs/member-x/proj-ads/?selector=app+in+(a", 4400),
        ("/ws/logs/member-x/proj-ads/?selector=", 4400),
        ("/ws/logs/member-x/proj-ads/", 4400),
        ("/ws/logs/member-x/proj-ads/?selector=a=b&file=/var/log/app.log", 4400),
        ("/ws/workload-logs/proj-ads/web/?file=/var/log/app.log", 4400),
        (LOGS + "?file=/etc/passwd", 4403),  # a viewer may not follow an undeclared file: permission
        ("/ws/logs/member-x/proj-ml/?selector=a=b", 4404),  # another tenant's: as if missing
    ],
)
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_bad_input_is_4400_and_only_permission_is_4403(fake_member, project, other_project, user, path, code):
    await database_sync_to_async(member)(project, user, "viewer")

    seen, got = await open_and_close(path, await database_sync_to_async(ws_headers)(user))

    assert got == code, seen
    if path.endswith("?selector=!!!"):
        assert seen[-1]["message"] == "Unsupported selector term '!!!' (use key=value)."


def pinapp(name: str, namespace: str = "proj-ads") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace}, "spec": {"tier": "OnDemand"}}


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_workload_that_does_not_exist_is_4404_one_without_pods_yet_stays_open(
    fake_member, project, user, monkeypatch
):
    await database_sync_to_async(member)(project, user, "viewer")
    host = FilledCache({"pinapps": [pinapp("fresh"), pinapp("nope", "proj-ml")]})
    monkeypatch.setattr("clusters.runtime.host_cache", lambda: host)
    headers = await database_sync_to_async(ws_headers)(user)

    seen, code = await open_and_close("/ws/workload-logs/proj-ads/nope/", headers)  # only proj-ml has a "nope"
    fresh = WebsocketCommunicator(application, "/ws/workload-logs/proj-ads/fresh/", headers=headers)
    assert (await fresh.connect(timeout=10))[0]
    opened = await fresh.receive_json_from(timeout=10)
    await fresh.disconnect()

    assert code == 4404 and seen[-1]["message"] == "No such workload: nope in proj-ads."
    assert opened["state"] == "connected" and opened["message"].startswith("Following 0 container(s) of fresh")


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_workload_stream_opens_when_the_host_cannot_tell(fake_member, project, user, monkeypatch):
    await database_sync_to_async(member)(project, user, "viewer")
    unsynced = FilledCache({})
    unsynced.synced = False
    monkeypatch.setattr("clusters.runtime.host_cache", lambda: unsynced)
    comm = WebsocketCommunicator(
        application, "/ws/workload-logs/proj-ads/later/", headers=await database_sync_to_async(ws_headers)(user)
    )
    assert (await comm.connect(timeout=10))[0]

    opened = await comm.receive_json_from(timeout=10)
    await comm.disconnect()

    assert opened["state"] == "connected"


# --- the client gone when the stream ends


def bare_consumer(send: Any) -> LogConsumer:
    """A LogConsumer past ``connect``: one target, no session row, ``send`` as the ASGI server's."""
    consumer = LogConsumer()
    consumer.scope = {"type": "websocket", "path": LOGS, "url_route": {"kwargs": {}}}
    consumer.base_send = send
    consumer.targets, consumer.followers, consumer.tasks, consumer.failures = [("web-1", "app")], [], [], []
    consumer.ended_streams, consumer.seq, consumer.skip_until, consumer.sent_bytes = 0, 0, 0, 0
    consumer.options, consumer.cluster = parse_log_options(""), SimpleNamespace(name="member-x")
    consumer.buffer = LineBuffer(asyncio.get_running_loop())
    return consumer


async def test_a_log_that_ends_after_its_client_left_ends_the_session_quietly():
    async def gone(message: dict[str, Any]) -> None:
        raise ClientDisconnected

    consumer = bare_consumer(gone)
    unretrieved: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda loop, context: unretrieved.append(context))

    consumer._ended_from_thread("web-1", "app", "ended")
    await asyncio.sleep(0.3)
    await asyncio.gather(*consumer.tasks)  # raised before: ClientDisconnected out of _ended

    assert consumer.ended and all(t.done() and t.exception() is None for t in consumer.tasks) and not unretrieved


async def test_a_resume_after_infinity_is_ignored():
    consumer = bare_consumer(None)
    consumer.resume = asyncio.get_running_loop().create_future()

    await consumer.receive_json({"type": "resume", "after_seq": float("inf")})

    assert consumer.resume.result() == 0
