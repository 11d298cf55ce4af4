"""Without a live cluster: log filters and file paths, the shell list, the asciicast recorder, declared log files,
the project's recording setting (service, audit, page control) and who may replay a recording, the workload-wide
log page and its websocket's refusals, and close frames that carry their reason."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

import pytest
from channels.db import database_sync_to_async

from base.errors import Conflict, Forbidden, Invalid, NotFound
from base.models import AuditEvent
from console.asgi import application
from debugging.logs.files import declared_log_files, tail_command
from debugging.logs.options import MAX_PATTERN, parse_log_options, valid_file_path
from debugging.models import DebugSession, SessionRecording
from debugging.shell.commands import SHELLS, shell_command
from debugging.shell.recording import TRUNCATED, Recorder, parse_cast
from debugging.socketbase import close_reason
from pincompute.kinds import DEFAULT_LOG_FILES, KINDS
from projects.lifecycle import set_shell_recording
from projects.models import ProjectState
from tests.support.debugging import member, ws_headers
from tests.support.fakes import fake_pod
from tests.support.wsclient import WebsocketCommunicator

# --- log options: include / exclude (RE2) and file paths


def test_include_and_exclude_are_re2_patterns_applied_to_the_text():
    opts = parse_log_options("include=level%3D(warn|error)&exclude=healthz")

    assert opts.wanted("level=error boom") and opts.wanted("level=warn slow")
    assert not opts.wanted("level=info fine") and not opts.wanted("level=error GET /healthz")
    assert parse_log_options("").wanted("anything")


def test_a_pathological_pattern_matches_in_linear_time():
    opts = parse_log_options("include=(a%2B)%2Bb")  # (a+)+b: exponential for a backtracking engine
    started = time.perf_counter()
    assert not opts.wanted("a" * 100_000 + "c")
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("include=(a)%5C1", "RE2"),  # a backreference: not linear-time, refused
        ("exclude=(", "RE2"),
        ("include=" + "a" * (MAX_PATTERN + 1), f"at most {MAX_PATTERN}"),
    ],
)
def test_bad_patterns_are_refused_with_the_field(query, why):
    with pytest.raises(Invalid) as refused:
        parse_log_options(query)
    assert why in refused.value.message and refused.value.close_code == 4400


@pytest.mark.parametrize("path", ["/var/log/app.log", "/tmp/a-b_c.1.log", "/data/x@y+z=1,2:3"])
def test_absolute_plain_paths_are_accepted(path):
    assert valid_file_path(path) == path
    assert parse_log_options(urlencode({"file": path})).file == path


@pytest.mark.parametrize(
    "path",
    ["var/log/app.log", "/", "/var/log/../../etc/passwd", "/var/./log", "/tmp/a b", "/tmp/a;id", "/tmp/$(id)",
     "/tmp/`id`", "/tmp/a|b", "/tmp/*.log", "/tmp/a'b", "/tmp/a\nb", "//tmp", "/" + "x" * 300],
)  # fmt: skip
def test_other_paths_are_refused(path):
    with pytest.raises(Invalid):
        valid_file_path(path)


def test_the_path_is_one_argv_element_after_the_end_of_options():
    assert tail_command("/var/log/app.log", 5) == ["tail", "-n", "5", "-F", "--", "/var/log/app.log"]


def test_the_kinds_declare_their_log_files():
    assert KINDS["PinApp"].log_files == DEFAULT_LOG_FILES == ("/var/log/app.log",)
    assert KINDS["PinScaler"].log_files == ()  # runs no pods
    assert "/var/log/train.log" in KINDS["PinterestTrainingJob"].log_files
    training = fake_pod("t-0", "proj-ads", labels={"pincompute.io/kind": "PinterestTrainingJob"})
    assert declared_log_files(training) == KINDS["PinterestTrainingJob"].log_files
    assert declared_log_files(fake_pod("plain", "proj-ads")) == DEFAULT_LOG_FILES


# --- shells


def test_shells_come_from_a_fixed_list():
    assert shell_command(None) == ("auto", SHELLS["auto"]) and shell_command("sh") == ("sh", ["/bin/sh"])
    for other in ("zsh", "/bin/bash", "sh -c id", "bash;id"):
        with pytest.raises(Invalid):
            shell_command(other)


# --- the asciicast recorder


def test_the_recorder_writes_asciicast_v2_with_the_opening_size_and_later_resizes():
    rec = Recorder(title="member-a/proj-ads/web-1/app", max_bytes=10_000)
    rec.resize(120, 40)
    rec.output("$ ")
    rec.output("echo hi\r\nhi\r\n")
    rec.resize(100, 30)

    header, events = parse_cast(rec.cast())

    assert header["version"] == 2 and (header["width"], header["height"]) == (120, 40)
    assert header["title"] == "member-a/proj-ads/web-1/app" and header["timestamp"] > 1_700_000_000
    assert [(kind, data) for _, kind, data in events] == [("o", "$ "), ("o", "echo hi\r\nhi\r\n"), ("r", "100x30")]
    assert [t for t, _, _ in events] == sorted(t for t, _, _ in events)


def test_the_recording_stops_at_its_bound_and_says_so():
    rec = Recorder(title="t", max_bytes=400)
    for i in range(100):
        rec.output(f"line {i}\r\n")

    _, events = parse_cast(rec.cast())

    assert rec.truncated and events[-1][2] == TRUNCATED
    assert rec.bytes <= 400 + len(json.dumps([0.0, "o", TRUNCATED])) + 16
    assert len(events) < 20


def test_close_reasons_fit_a_close_frame():
    assert close_reason("short") == "short"
    cut = close_reason("é" * 100)
    assert len(cut.encode()) <= 123 and cut == "é" * 61


# --- the project's setting


@pytest.mark.django_db
def test_owners_and_admins_turn_recording_on_and_off_audited(project, user, other_user, admin_user):
    member(project, user, "owner")
    member(project, other_user, "developer")
    assert project.record_shells is False  # off by default

    set_shell_recording(project, True, actor=user)
    set_shell_recording(project, True, actor=user)  # no change: no second row
    set_shell_recording(project, False, actor=admin_user)
    with pytest.raises(Forbidden):
        set_shell_recording(project, True, actor=other_user)

    rows = list(AuditEvent.objects.filter(action="project.shell_recording.set").order_by("pk"))
    assert [(r.actor_id, r.before, r.after) for r in rows] == [
        (user.pk, {"record_shells": False}, {"record_shells": True}),
        (admin_user.pk, {"record_shells": True}, {"record_shells": False}),
    ]
    project.refresh_from_db()
    assert project.record_shells is False


@pytest.mark.django_db
def test_an_archived_project_or_another_tenant_cannot_change_it(project, other_project, user):
    member(project, user, "owner")
    with pytest.raises(NotFound):
        set_shell_recording(other_project, True, actor=user)
    project.state = ProjectState.ARCHIVED
    project.save()
    with pytest.raises(Conflict):
        set_shell_recording(project, True, actor=user)


@pytest.mark.django_db
def test_the_project_page_has_the_control_for_owners(project, user, other_user, client):
    member(project, user, "owner")
    member(project, other_user, "developer")
    client.force_login(user)

    page = client.get(f"/projects/{project.name}/")
    answer = client.post(f"/projects/{project.name}/shell-recording/", {"record_shells": "1"})
    bad = client.post(f"/projects/{project.name}/shell-recording/", {"record_shells": "yes"})
    client.force_login(other_user)
    developer = client.post(f"/projects/{project.name}/shell-recording/", {"record_shells": "0"})
    developer_page = client.get(f"/projects/{project.name}/")

    assert b'action="/projects/ads/shell-recording/"' in page.content and b"Record shells" in page.content
    assert answer.status_code == 302 and bad.status_code == 400 and developer.status_code == 403
    assert b"shell-recording/" not in developer_page.content and b"data-shell-recording" in developer_page.content
    project.refresh_from_db()
    assert project.record_shells is True


# --- who may replay a recording


def recorded_session(project_name: str, username: str = "dev") -> DebugSession:
    row = DebugSession.objects.create(
        kind="shell", username=username, project_name=project_name, cluster="member-x", namespace="proj-ads",
        pod="web-1", container="app", recorded=True,
    )  # fmt: skip
    rec = Recorder(title="t")
    rec.output("secret-output\r\n")
    SessionRecording.objects.create(session=row, cast=rec.cast(), size=len(rec.cast()))
    return row


@pytest.mark.django_db
def test_only_owners_and_platform_admins_replay_a_recording(
    project, other_project, user, other_user, admin_user, client, django_user_model
):
    row = recorded_session(project.name)
    member(project, user, "owner")
    member(project, other_user, "developer")
    stranger = django_user_model.objects.create_user("stranger", password="x")
    member(other_project, stranger, "owner")  # an owner, of another project
    answers = {}
    for who in (user, admin_user, other_user, stranger):
        client.force_login(who)
        page, cast = client.get(f"/debug/recordings/{row.pk}/"), client.get(f"/debug/recordings/{row.pk}.cast")
        answers[who.username] = (page.status_code, cast.status_code, b"secret-output" in cast.content + page.content)

    assert answers[user.username] == (200, 200, True) and answers[admin_user.username] == (200, 200, True)
    assert answers[other_user.username] == (404, 404, False) and answers["stranger"] == (404, 404, False)
    client.force_login(user)
    assert client.get("/debug/recordings/999999/").status_code == 404
    page = client.get(f"/debug/recordings/{row.pk}/")
    assert "'wasm-unsafe-eval'" in page["Content-Security-Policy"]  # the player's emulator, on this page only
    assert b'data-asciicast="/debug/recordings/' in page.content and b"dist/player.js" in page.content
    assert "wasm-unsafe-eval" not in client.get(f"/debug/sessions/{project.name}/")["Content-Security-Policy"]


# --- a workload across clusters: the page and the websocket's refusals


@pytest.mark.django_db
def test_the_workload_page_streams_every_cluster(fake_member, project, other_project, user, client):
    member(project, user, "viewer")
    client.force_login(user)

    page = client.get("/debug/workload/proj-ads/web/logs/?include=err&tail=20")
    per_cluster = client.get("/debug/member-x/proj-ads/logs/?selector=pincompute.io/workload%3Dweb")

    assert page.status_code == 200
    assert b'data-ws-url="/ws/workload-logs/proj-ads/web/?tail=20&amp;include=err"' in page.content
    assert b'href="/debug/workload/proj-ads/web/logs/"' in per_cluster.content
    assert client.get("/debug/workload/proj-ml/train/logs/").status_code == 404  # another tenant's
    assert client.get("/debug/workload/proj-ads/Bad..Name/logs/").status_code == 404
    assert client.get("/debug/workload/proj-ads/web/logs/?include=(").status_code == 400


async def closed(path: str, headers: list[tuple[bytes, bytes]]) -> tuple[dict, dict]:
    comm = WebsocketCommunicator(application, path, headers=headers)
    assert (await comm.connect())[0]
    status = await comm.receive_json_from(timeout=5)
    frame = await comm.receive_output(timeout=5)
    await comm.wait()
    return status, frame


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/ws/workload-logs/proj-ml/train/", 4404),  # another tenant's namespace: as if missing
        ("/ws/workload-logs/proj-ads/web/?file=/var/log/app.log", 4400),  # a file is one container's
        ("/ws/workload-logs/proj-ads/..%2Fx/", 4404),
        ("/ws/exec/member-x/proj-ads/web-1/app/?shell=zsh", 4400),
    ],
)
async def test_refusals_close_with_the_reason_in_the_frame(fake_member, project, other_project, user, path, code):
    await database_sync_to_async(member)(project, user, "developer")

    status, frame = await closed(path, await database_sync_to_async(ws_headers)(user))

    assert frame["code"] == code and frame["reason"] == close_reason(status["message"]) and status["state"] == "error"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_viewer_may_not_follow_an_undeclared_file(fake_member, project, user):
    await database_sync_to_async(member)(project, user, "viewer")
    headers = await database_sync_to_async(ws_headers)(user)

    status, frame = await closed("/ws/logs/member-x/proj-ads/web-1/app/?file=/etc/passwd", headers)

    assert frame["code"] == 4403 and "A file its kind does not declare (/var/log/app.log)" in status["message"]
    assert await database_sync_to_async(DebugSession.objects.count)() == 0


@pytest.mark.django_db
def test_the_pod_page_offers_the_declared_files_and_carries_the_options_to_the_stream(
    fake_member, project, user, client
):
    member(project, user, "viewer")
    client.force_login(user)

    page = client.get("/debug/member-x/proj-ads/web-1/?file=/var/log/app.log&include=err&exclude=health")
    console = client.get("/debug/member-x/proj-ads/web-1/")

    assert page.status_code == 200
    assert b'<option value="/var/log/app.log">' in console.content and b"data-log-file-link" in console.content
    assert (
        b'data-ws-url="/ws/logs/member-x/proj-ads/web-1/app/?include=err&amp;exclude=health&amp;file=%2Fvar%2Flog%2Fapp.log"'
        in page.content
    )
    assert client.get("/debug/member-x/proj-ads/web-1/?file=/etc/../x").status_code == 400


@pytest.mark.django_db
def test_the_shell_panel_picks_from_the_fixed_list(fake_member, project, user, client):
    member(project, user, "developer")
    client.force_login(user)

    auto = client.get("/debug/member-x/proj-ads/web-1/shell/")
    sh = client.get("/debug/member-x/proj-ads/web-1/shell/?shell=sh")

    assert b'<option value="auto" selected>' in auto.content and b'<option value="sh">' in auto.content
    assert b'data-ws-url="/ws/exec/member-x/proj-ads/web-1/app/?shell=sh"' in sh.content
    assert client.get("/debug/member-x/proj-ads/web-1/shell/?shell=zsh").status_code == 400


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_read_only_token_follows_no_undeclared_file(fake_member, project, user):
    from accounts.services import create_api_token

    await database_sync_to_async(member)(project, user, "developer")  # a developer, through a read-only token
    _, raw = await database_sync_to_async(create_api_token)(user=user, name="ro", days=1, scope="read")
    headers = [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1"), (b"authorization", f"Bearer {raw}".encode())]

    status, frame = await closed("/ws/logs/member-x/proj-ads/web-1/app/?file=/etc/passwd", headers)

    assert frame["code"] == 4403 and "read-only" in status["message"]
