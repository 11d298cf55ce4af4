"""``pincompute logs -f`` and ``exec`` end to end: the CLI against the portal's ASGI app served by uvicorn (HTTP
discovery + the real websocket consumers, token on the handshake, the same authorization and audit as the
browser). Below the consumers, the pod's side is local: the log follower replays scripted lines, the exec session
is a real ``/bin/sh`` on a pseudo-terminal (echo, CR-LF, ^D behave as in a pod's TTY)."""

from __future__ import annotations

import threading
import time

import pytest

from base.models import AuditEvent
from tests.support.sdk_cli import LINES

pytestmark = pytest.mark.django_db(transaction=True)


def test_logs_follow_streams_the_lines_until_the_log_ends(cli, viewer):
    code, out, err = cli(viewer, "logs", "-f", "done-1", "-n", "ads", "--cluster", "member-a")

    assert (code, out, err) == (0, "".join(f"{line}\n" for line in LINES), "")
    event = AuditEvent.objects.get(action="logs.open")
    assert event.actor_id == viewer.pk and event.target_name == "proj-ads/done-1/app"


def test_logs_without_follow_print_what_is_there_and_return(cli, viewer):
    started = time.monotonic()
    code, out, _ = cli(viewer, "logs", "web-1", "-n", "ads", "--cluster", "member-a", "--tail", "2")

    assert (code, out) == (0, "listening on :8080\nGET / 200\n") and time.monotonic() - started < 10
    code, out, err = cli(viewer, "logs", "web-1", "-n", "ads", "--cluster", "member-a", "--since", "99y")
    assert (code, out) == (1, "") and "since=" in err, err  # the consumer's refusal (4400), its message


def test_exec_runs_a_command_and_prints_its_output(cli, developer):
    code, out, err = cli(developer, "exec", "web-1", "-n", "ads", "--cluster", "member-a", "--", "echo", "hi")

    assert (code, out) == (0, "hi\n"), err
    for _ in range(100):  # the server writes shell.close just after its close frame
        if AuditEvent.objects.filter(action="shell.close").exists():
            break
        threading.Event().wait(0.05)
    events = list(AuditEvent.objects.filter(action__startswith="shell.").order_by("pk"))
    assert [e.action for e in events] == ["shell.open", "shell.close"]
    assert events[0].actor_id == developer.pk and events[1].after["reason"] == "exit 0"


def test_exec_pipes_stdin_and_exits_with_the_remote_status(cli, developer):
    argv = ["exec", "-i", "web-1", "-n", "ads", "--cluster", "member-a", "--", "sh", "-c", "tr a-z A-Z; exit 7"]

    assert cli(developer, *argv, stdin=b"one\ntwo\n")[:2] == (7, "ONE\nTWO\n")


def test_another_tenants_pod_is_exit_3(cli, developer):
    code, _, err = cli(developer, "logs", "train-1", "-n", "ml", "--cluster", "member-a")
    assert code == 3, err
    code, _, err = cli(developer, "exec", "train-1", "-n", "ads", "--cluster", "member-a", "--", "true")
    assert code == 3, err


def test_a_viewer_cannot_exec(cli, viewer):
    code, out, err = cli(viewer, "exec", "web-1", "-n", "ads", "--cluster", "member-a", "--", "echo", "hi")

    assert (code, out) == (1, "") and "not open a shell" in err
    assert not AuditEvent.objects.filter(action="shell.open").exists()
