"""The CLI's streams against the served portal: ``portal`` (the consumers' log follower and exec scripted) and
``cli`` (the CLI's ``main`` run in-process against it)."""

from __future__ import annotations

# isort: off
import tests.support.sdk  # noqa: F401 - first: the SDK's own directory on sys.path, for pinconsole_sdk
# isort: on

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
from debugging.kubeexec import ExecResult
from debugging.logs.streams import RawLine
from tests.support.fakes import FilledCache, fake_pod

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
    for consumers in ("debugging.shell.consumer", "debugging.logs.consumer"):  # the shell's, the logs'
        monkeypatch.setattr(f"{consumers}.api_for", lambda cluster: object())
    monkeypatch.setattr("debugging.logs.consumer.LogFollower", ScriptedFollower)
    monkeypatch.setattr("debugging.shell.consumer.ExecSession", PtyExec)
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
