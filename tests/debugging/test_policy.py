"""Policy without a live cluster: malformed and unmatched paths, rate-limited refusal audit, platform sidecars,
log options and the resume bound, the sessions page."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import websocket
from channels.db import database_sync_to_async

from base.errors import Invalid
from base.models import AuditEvent
from debugging.logs.options import RESUME_MAX_SECONDS, LogOptions, parse_log_options, resume_window
from debugging.logs.streams import LOG_BUFFER_LINES
from debugging.models import DebugSession
from debugging.policy import platform_containers
from tests.support.debugging import http_origin, member, refused_with, ws_headers
from tests.support.fakes import fake_pod

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


@database_sync_to_async
def refusals() -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action="debug.refused").order_by("pk"))


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/ws/exec/member-x/proj-ads/../proj-ml/train-1/app/", 4404),  # a "/" inside a name: no route
        ("/ws/exec/member-x/proj-ads%2F..%2Fproj-ml/train-1/app/", 4404),  # decoded to the same
        ("/ws/logs/member-x//web-1/app/", 4404),  # an empty part
        ("/ws/exec/member-x/proj-ads/../app/", 4400),  # ".." as a pod name
        ("/ws/logs/member-x/proj-ads/web-1/APP%00/", 4400),
        ("/ws/nothing-here/", 4404),
    ],
)
async def test_malformed_paths_are_refused_cleanly_and_audited(fake_member, project, user, path, code):
    await database_sync_to_async(member)(project, user, "owner")

    status, closed = await refused_with(path, ws_headers(user))

    assert closed == code and status["state"] == "error"
    (row,) = await refusals()
    assert row.actor_id == user.pk and row.after["code"] == code and row.target_name.startswith("/ws/")


async def test_probing_is_audited_once_per_window_with_a_count(fake_member, project, other_project, user, settings):
    settings.DEBUG_REFUSAL_AUDIT_SECONDS = 4
    await database_sync_to_async(member)(project, user, "owner")
    headers = await database_sync_to_async(ws_headers)(user)
    await asyncio.gather(*[refused_with("/ws/exec/member-x/proj-ml/train-1/app/", headers) for _ in range(5)])
    first = await refusals()
    await asyncio.sleep(max(0.0, first[0].created_at.timestamp() + 4.3 - time.time()))  # the window is over

    await refused_with("/ws/logs/member-x/proj-ml/train-1/app/", headers)

    rows = await refusals()
    assert len(first) == 1 and first[0].after == {"code": 4404, "reason": "No such pod.", "suppressed": 0, "client": ""}
    assert len(rows) == 2 and rows[1].after["suppressed"] == 4 and rows[1].target_name.startswith("/ws/logs/")


async def test_anonymous_refusals_are_audited_by_client_address(fake_member, project):
    await refused_with("/ws/exec/member-x/proj-ads/web-1/app/", ws_headers(None))

    (row,) = await refusals()
    assert row.actor_id is None and row.after["code"] == 4401 and row.after["client"].startswith("addr:")


def injected_pod() -> dict[str, Any]:
    pod = fake_pod("svc-1", "proj-ads", containers=("app",))
    pod["metadata"]["annotations"] = {
        "pincompute.io/runtime-profile": "v1",
        "pincompute.io/injected": "pincompute-security",
    }
    pod["spec"]["initContainers"] = [{"name": "pincompute-security", "image": "x", "restartPolicy": "Always"}]
    return pod


def test_the_platform_sidecars_are_the_profiles_injected_containers():
    assert platform_containers(injected_pod()) == {"pincompute-security"}
    assert platform_containers(fake_pod("plain", "proj-ads")) == frozenset()


async def test_a_developer_cannot_exec_into_a_platform_sidecar_an_admin_can(fake_member, project, user, admin_user):
    fake_member.put("pods", injected_pod())
    await database_sync_to_async(member)(project, user, "developer")
    path = "/ws/exec/member-x/proj-ads/svc-1/pincompute-security/"

    status, code = await refused_with(path, ws_headers(user))
    _, admin_code = await refused_with(path, ws_headers(admin_user))

    assert code == 4403 and "platform sidecar" in status["message"]
    assert admin_code == 4502  # authorized: the (unreachable) apiserver is what fails


def test_the_pod_page_marks_sidecars_and_offers_no_shell_in_them(fake_member, project, user, client):
    fake_member.put("pods", injected_pod())
    member(project, user, "developer")
    client.force_login(user)

    page = client.get("/debug/member-x/proj-ads/svc-1/?container=pincompute-security").content.decode()

    assert "data-sidecar>pincompute-security (platform sidecar, logs only)</option>" in page
    assert "/shell/" not in page and "only platform admins" in page
    assert client.get("/debug/member-x/proj-ads/svc-1/shell/?container=pincompute-security").status_code == 403


def test_the_pod_page_passes_log_options_to_the_stream(fake_member, project, user, client):
    member(project, user, "viewer")
    client.force_login(user)

    page = client.get("/debug/member-x/proj-ads/web-1/?container=app&tail=20&since=10m&timestamps=1").content.decode()

    assert 'data-ws-url="/ws/logs/member-x/proj-ads/web-1/app/?tail=20&amp;since=10m&amp;timestamps=1"' in page
    assert client.get("/debug/member-x/proj-ads/web-1/?tail=lots").status_code == 400


def test_log_options_parse_and_refuse_out_of_range_values():
    assert parse_log_options("") == LogOptions()
    assert parse_log_options("tail=5&since=2h&timestamps=1&previous=true&follow=0") == LogOptions(
        tail=5, since_seconds=7200, timestamps=True, previous=True, follow=False
    )
    for bad in ("tail=-1", "tail=99999", "since=0", "since=8d", "since=1w", "follow=maybe"):
        with pytest.raises(Invalid):
            parse_log_options(bad)


async def test_an_invalid_log_option_is_a_4400(fake_member, project, user):
    await database_sync_to_async(member)(project, user, "viewer")

    status, code = await refused_with("/ws/logs/member-x/proj-ads/web-1/app/?tail=x", ws_headers(user))

    assert code == 4400 and "tail" in status["message"]


def test_a_resume_never_reaches_further_back_than_the_window():
    now = 2_000_000_000.0
    skip, since, tail = resume_window(1, now, 1)  # "resume after the epoch": the whole history, if trusted
    assert since == RESUME_MAX_SECONDS and tail == LOG_BUFFER_LINES
    assert skip == int((now - RESUME_MAX_SECONDS) * 1_000_000)
    skip, since, tail = resume_window(int((now - 30) * 1_000_000), now, 20)
    assert since == 32 and tail == LOG_BUFFER_LINES // 20 and skip == int((now - 30) * 1_000_000)
    assert resume_window(int(now * 1_000_000) * 2, now, 1)[0] == int(now * 1_000_000)  # not past now


def test_the_sessions_page_shows_owners_everything_and_others_their_own(project, user, other_user, client):
    member(project, user, "owner")
    member(project, other_user, "developer")
    for who, pod in ((user, "mine-1"), (other_user, "theirs-1")):
        DebugSession.objects.create(
            kind="shell",
            user=who,
            username=who.username,
            project_name="ads",
            cluster="member-a",
            namespace="proj-ads",
            pod=pod,
            container="app",
            bytes_in=12,
            bytes_out=3400,
            end_reason="exit 0",
            close_code=1000,
            ended_at=time_now(),
        )

    client.force_login(user)
    owner_page = client.get("/debug/sessions/ads/").content.decode()
    client.force_login(other_user)
    developer_page = client.get("/debug/sessions/ads/").content.decode()

    assert "mine-1/app" in owner_page and "theirs-1/app" in owner_page and "exit 0" in owner_page
    assert "theirs-1/app" in developer_page and "mine-1/app" not in developer_page
    assert client.get("/debug/sessions/ml/").status_code == 404


def time_now() -> Any:
    from django.utils import timezone

    return timezone.now()


@pytest.mark.parametrize("path", ["/ws/exec/member-x/proj-ads%2F..%2Fproj-ml/train-1/app/", "/ws/x/"])
def test_under_uvicorn_a_malformed_path_is_a_close_code_not_an_http_500(
    fake_member, project, user, uvicorn_default_ws, path
):
    member(project, user, "owner")
    cookie = dict(ws_headers(user))[b"cookie"].decode()

    ws = websocket.create_connection(
        uvicorn_default_ws + path, header=[f"Cookie: {cookie}"], origin=http_origin(uvicorn_default_ws)
    )
    frames = []
    while True:
        opcode, frame = ws.recv_data_frame(True)
        frames.append((opcode, frame.data))
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            break
    ws.close()

    assert int.from_bytes(frames[-1][1][:2], "big") == 4404
