"""The local pods' container restart answers the exec before its status write lands, as a kubelet's ``kill`` does.

The apiserver here is a small HTTP server that answers the pod's status read at once and holds the status write
until the test lets it go: a loaded apiserver, made deterministic. The live restart is tested end to end in
``tests/pincompute/operator/test_operator.py``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from devtools.localcp.pods.restart import Restarter
from devtools.localcp.pods.watch import Pod, Registry

STATUS_PATH = "/api/v1/namespaces/team/pods/web-0/status"


class SlowApiserver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, running: bool = True, read_delay: float = 0.0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.release = threading.Event()  # lets the status write answer
        self.read_delay = read_delay
        self.patches: list[dict[str, Any]] = []
        state = {"running": {"startedAt": "2026-11-28T10:00:00Z"}} if running else {"waiting": {"reason": "Crash"}}
        self.pod = {
            "metadata": {"name": "web-0", "namespace": "team", "uid": "uid-1", "resourceVersion": "7"},
            "status": {"containerStatuses": [{"name": "app", "restartCount": 2, "state": state}]},
        }


class _Handler(BaseHTTPRequestHandler):
    server: SlowApiserver

    def log_message(self, *_: object) -> None:
        pass

    def _answer(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        assert self.path == STATUS_PATH
        if self.server.read_delay:
            threading.Event().wait(self.server.read_delay)
        self._answer(self.server.pod)

    def do_PATCH(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.release.wait(30)
        self.server.patches.append(body)
        self._answer(self.server.pod)


@pytest.fixture
def served() -> Iterator[SlowApiserver]:
    server = SlowApiserver()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()


def restarter_for(server: SlowApiserver, tmp_path: Path) -> tuple[Restarter, list[Pod]]:
    config = client.Configuration()
    config.host = f"http://127.0.0.1:{server.server_address[1]}"
    registry = Registry()
    registry.put(Pod("team", "web-0", "uid-1", tmp_path, tmp_path / "console.log", containers=("app",)))
    restarted: list[Pod] = []
    return Restarter(client.ApiClient(config), registry, on_restart=restarted.append), restarted


def answer_of(
    restarter: Restarter, key: str = "team/web-0", container: str = "app", within: float = 8
) -> list[str | None]:
    """What ``restart`` answered, empty when it has not answered ``within`` seconds."""
    answered: list[str | None] = []
    thread = threading.Thread(target=lambda: answered.append(restarter.restart(key, container)), daemon=True)
    thread.start()
    thread.join(within)
    return answered


def test_the_exec_is_answered_while_the_status_write_is_still_on_its_way(served: SlowApiserver, tmp_path: Path) -> None:
    restarter, restarted = restarter_for(served, tmp_path)
    assert answer_of(restarter) == [None]
    assert served.patches == [] and restarted == []
    served.release.set()
    for _ in range(100):
        if restarted:
            break
        threading.Event().wait(0.05)
    assert [p.key for p in restarted] == ["team/web-0"]
    (patch,) = served.patches
    assert patch["metadata"] == {"resourceVersion": "7"}
    (status,) = patch["status"]["containerStatuses"]
    assert status["restartCount"] == 3
    assert status["lastState"]["terminated"]["exitCode"] == 143
    assert status["state"]["running"]["startedAt"] != "2026-11-28T10:00:00Z"


def test_a_container_that_does_not_run_is_refused_at_once(tmp_path: Path) -> None:
    server = SlowApiserver(running=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        restarter, restarted = restarter_for(server, tmp_path)
        assert answer_of(restarter) == ["container app is not running"]
        assert answer_of(restarter, "team/other") == ["this pod's sandbox is not set up"]
        server.release.set()
        assert server.patches == [] and restarted == []
    finally:
        server.shutdown()
        server.server_close()


def test_an_apiserver_that_does_not_answer_gives_the_exec_an_error_not_a_hang(tmp_path: Path) -> None:
    server = SlowApiserver(read_delay=20)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        restarter, _ = restarter_for(server, tmp_path)
        (said,) = answer_of(restarter, within=15)  # two reads of 5 s at most: inside the operator's 20 s
        assert said is not None and said.startswith("cannot restart container app: the apiserver did not answer")
    finally:
        server.shutdown()
        server.server_close()
