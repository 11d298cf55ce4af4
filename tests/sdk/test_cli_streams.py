"""``pincompute logs -f`` and ``exec`` end to end: the CLI against the portal's ASGI app served by uvicorn (HTTP
discovery + the real websocket consumers, token on the handshake, the same authorization and audit as the
browser). Below the consumers, the pod's side is local: the log follower replays scripted lines, the exec session
is a real ``/bin/sh`` on a pseudo-terminal (echo, CR-LF, ^D behave as in a pod's TTY)."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import threading
import time
from typing import Any

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from base.models import AuditEvent
from debugging.kubeexec import ExecResult
from debugging.streams import RawLine
from tests.support.fakes import FilledCache, fake_pod

pytestmark = pytest.mark.django_db(transaction=True)

LINES = ["starting", "listening on :8080", "GET / 200"]


class ScriptedFollower(threading.Thread):
    """The consumer's log follower over scripted lines: the options it was given applied as the real one does
    (``tail_lines``; ``follow=False``: what is there, then the end). A ``done-*`` pod's log ends by itself."""

    def __init__(self, api, namespace, pod, container, sink, *, tail_lines=None, since_seconds=None, on_end=None,
                 previous=False, follow=True):  # fmt: skip
        super().__init__(daemon=True)
        self.pod, self.container, self.sink, self.on_end = pod, container, sink, on_end
        self.lines = LINES[-tail_lines:] if tail_lines else LINES
        self.follow = follow
        self.stopped = threading.Event()

    def run(self) -> None:
        for i, text in enumerate(self.lines):
            self.sink.put(RawLine(self.pod, self.container, f"2026-01-01T00:00:0{i}.000000Z", text))
        if (self.pod.startswith("done") or not self.follow) and self.on_end is not None:
            self.on_end(self.pod, self.container, "ended")
        else:
            self.stopped.wait(30)

    def stop(self) -> None:
        self.stopped.set()


class PtyExec:
    """ExecSession's interface over a local /bin/sh on a pseudo-terminal."""

    def __init__(self, api, namespace, pod, container, command, **kwargs):
        self.bytes_out = 0
        self.output_queue: asyncio.Queue[Any] = asyncio.Queue()

    async def open(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.master, slave = os.openpty()
        env = {"PATH": os.environ["PATH"], "PS1": "$ ", "HOME": "/tmp", "TERM": "dumb"}
        self.proc = subprocess.Popen(
            ["/bin/sh"], stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
        )
        os.close(slave)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                data = b""
            if not data:
                break
            self.bytes_out += len(data)
            self.loop.call_soon_threadsafe(self.output_queue.put_nowait, data.decode(errors="replace"))
        code = self.proc.wait()
        self.loop.call_soon_threadsafe(self.output_queue.put_nowait, ExecResult("exited", code))

    async def output(self) -> Any:
        while True:
            item = await self.output_queue.get()
            yield item
            if isinstance(item, ExecResult):
                return

    async def write_stdin(self, data: str) -> None:
        os.write(self.master, data.encode())

    async def resize(self, cols: int, rows: int) -> None:
        pass

    async def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()


@pytest.fixture
def portal(asgi_portal, project, other_project, caches, monkeypatch):
    """The served portal; member-a holds proj-ads/web-1, done-1 and proj-ml/train-1."""
    caches["member-a"] = FilledCache(
        {"pods": [fake_pod("web-1", "proj-ads"), fake_pod("done-1", "proj-ads"), fake_pod("train-1", "proj-ml")]}
    )
    for consumers in ("debugging.consumers", "debugging.logsockets"):  # the shell's, the logs'
        monkeypatch.setattr(f"{consumers}.api_for", lambda cluster: object())
    monkeypatch.setattr("debugging.logsockets.LogFollower", ScriptedFollower)
    monkeypatch.setattr("debugging.consumers.ExecSession", PtyExec)
    return asgi_portal.url


@pytest.fixture
def cli(portal, monkeypatch):
    monkeypatch.setenv("PINCONSOLE_URL", portal)

    def run(user: Any, *argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
        token = create_api_token(user=user, name=f"cli-{time.monotonic_ns()}", days=1)[1]
        monkeypatch.setenv("PINCONSOLE_TOKEN", token)
        out, err = io.StringIO(), io.StringIO()
        code = main(list(argv), out=out, err=err, inp=io.BytesIO(stdin))
        return code, out.getvalue(), err.getvalue()

    return run


def test_logs_follow_streams_the_lines_until_the_log_ends(cli, viewer):
    code, out, err = cli(viewer, "logs", "-f", "done-1", "-p", "ads", "--cluster", "member-a")

    assert (code, out, err) == (0, "".join(f"{line}\n" for line in LINES), "")
    event = AuditEvent.objects.get(action="logs.open")
    assert event.actor_id == viewer.pk and event.target_name == "proj-ads/done-1/app"


def test_logs_without_follow_print_what_is_there_and_return(cli, viewer):
    started = time.monotonic()
    code, out, _ = cli(viewer, "logs", "web-1", "-p", "ads", "--cluster", "member-a", "--tail", "2")

    assert (code, out) == (0, "listening on :8080\nGET / 200\n") and time.monotonic() - started < 10
    code, out, err = cli(viewer, "logs", "web-1", "-p", "ads", "--cluster", "member-a", "--since", "99y")
    assert (code, out) == (1, "") and "since=" in err, err  # the consumer's refusal (4400), its message


def test_exec_runs_a_command_and_prints_its_output(cli, developer):
    code, out, err = cli(developer, "exec", "web-1", "-p", "ads", "--cluster", "member-a", "--", "echo", "hi")

    assert (code, out) == (0, "hi\n"), err
    for _ in range(100):  # the server writes shell.close just after its close frame
        if AuditEvent.objects.filter(action="shell.close").exists():
            break
        threading.Event().wait(0.05)
    events = list(AuditEvent.objects.filter(action__startswith="shell.").order_by("pk"))
    assert [e.action for e in events] == ["shell.open", "shell.close"]
    assert events[0].actor_id == developer.pk and events[1].after["reason"] == "exit 0"


def test_exec_pipes_stdin_and_exits_with_the_remote_status(cli, developer):
    argv = ["exec", "-i", "web-1", "-p", "ads", "--cluster", "member-a", "--", "sh", "-c", "tr a-z A-Z; exit 7"]

    assert cli(developer, *argv, stdin=b"one\ntwo\n")[:2] == (7, "ONE\nTWO\n")


def test_another_tenants_pod_is_exit_3(cli, developer):
    code, _, err = cli(developer, "logs", "train-1", "-p", "ml", "--cluster", "member-a")
    assert code == 3, err
    code, _, err = cli(developer, "exec", "train-1", "-p", "ads", "--cluster", "member-a", "--", "true")
    assert code == 3, err


def test_a_viewer_cannot_exec(cli, viewer):
    code, out, err = cli(viewer, "exec", "web-1", "-p", "ads", "--cluster", "member-a", "--", "echo", "hi")

    assert (code, out) == (1, "") and "not open a shell" in err
    assert not AuditEvent.objects.filter(action="shell.open").exists()
