"""The locust users of ``bench/load.py`` (not run on its own: ``load.py`` seeds the portal, writes the config this
reads from ``LOAD_CONFIG`` and starts locust on this file).

- ``Visitor``: a person with a browser session and an API token, browsing pages (dashboard, project, workload
  list and detail, pod page; platform admins also clusters and audit) and calling the API (workload list and get,
  pods, timelines), a think time between requests.
- ``Shell``: an open terminal (``/ws/exec/...``) into a kwok pod, typing a command now and then and waiting for its
  output (the shell really ran it).
- ``LogStream``: a followed log (``/ws/logs/...`` one pod, every fifth ``/ws/workload-logs/...`` the whole
  workload over both members), reading lines as they come.

Sockets are websocket-client connections (blocking calls that gevent's monkey patching, done by locust, makes
cooperative). Their opens, closes and command round trips are locust request events (type ``WS``), so failures are
counted with the HTTP ones; lines received and close codes go to ``LOAD_STATS`` with locust's stats at the end.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import websocket
from locust import User, between, events, task
from locust.contrib.fasthttp import FastHttpUser
from locust.exception import StopUser

CONFIG: dict[str, Any] = json.loads(Path(os.environ["LOAD_CONFIG"]).read_text()) if "LOAD_CONFIG" in os.environ else {}
THINK = CONFIG.get("think", [2.0, 8.0])
COUNTS: Counter[str] = Counter()  # socket counters of this run, written to LOAD_STATS at the end
_next = {kind: itertools.count() for kind in ("visitors", "shells", "logs")}


def _credentials(kind: str) -> dict[str, Any]:
    pool = CONFIG[kind]
    return dict(pool[next(_next[kind]) % len(pool)])


def fire(environment: Any, name: str, started: float, exc: BaseException | None = None, length: int = 0) -> None:
    environment.events.request.fire(
        request_type="WS",
        name=name,
        response_time=(time.perf_counter() - started) * 1000,
        response_length=length,
        exception=exc,
        context={},
    )


class Visitor(FastHttpUser):
    """Pages with the session cookie, API calls with the bearer token; redirects are failures (a 302 to the
    sign-in page would otherwise count as a served page)."""

    wait_time = between(*THINK)

    def on_start(self) -> None:
        me = _credentials("visitors")
        self.admin = bool(me["admin"])
        self.cookie = {"Cookie": f"sessionid={me['session']}"}
        self.bearer = {"Authorization": f"Bearer {me['token']}"}
        self.pod = random.choice(CONFIG["pods"])

    def page(self, path: str, name: str) -> None:
        with self.client.get(
            path, headers=self.cookie, name=f"page: {name}", allow_redirects=False, catch_response=True
        ) as got:
            if got.status_code != 200:
                got.failure(f"{got.status_code} {got.headers.get('location', '') if got.headers else ''}")

    def api(self, path: str, name: str) -> None:
        with self.client.get(
            f"/api/v1/{path}", headers=self.bearer, name=f"api: {name}", allow_redirects=False, catch_response=True
        ) as got:
            if got.status_code != 200:
                got.failure(f"{got.status_code} {(got.text or '')[:200]}")

    @task(3)
    def dashboard(self) -> None:
        self.page("/", "dashboard")

    @task(2)
    def project(self) -> None:
        self.page(f"/projects/{CONFIG['project']}/", "project")

    @task(3)
    def workload_list(self) -> None:
        self.page("/workloads/", "workload list")

    @task(3)
    def workload_detail(self) -> None:
        self.page(CONFIG["workload_page"], "workload detail")

    @task(1)
    def pod_page(self) -> None:
        pod = self.pod
        self.page(f"/debug/{pod['cluster']}/{pod['namespace']}/{pod['name']}/", "pod")

    @task(1)
    def admin_pages(self) -> None:
        """Clusters and audit are platform admins' pages (a developer gets 403, asserted elsewhere)."""
        if not self.admin:
            return self.page("/projects/", "project list")
        self.page("/clusters/", "clusters")
        self.page(f"/clusters/{self.pod['cluster']}/", "cluster detail")
        self.page("/audit/", "audit")

    @task(3)
    def api_workloads(self) -> None:
        self.api(f"projects/{CONFIG['project']}/workloads/", "workload list")

    @task(3)
    def api_workload(self) -> None:
        self.api(CONFIG["workload_api"], "workload get")

    @task(3)
    def api_pods(self) -> None:
        self.api(f"projects/{CONFIG['project']}/pods/", "pods list")

    @task(2)
    def api_timeline(self) -> None:
        self.api(f"{CONFIG['workload_api']}timeline/", "workload timeline")

    @task(1)
    def api_all_workloads(self) -> None:
        self.api("workloads/", "all workloads")


class Socket(User):
    """A websocket held for the whole run; ``open()`` is retried while the portal's caches fill (4404)."""

    abstract = True
    kind = ""
    ws: websocket.WebSocket | None = None

    def connect(self, path: str) -> None:
        started = time.perf_counter()
        deadline = time.monotonic() + 60
        while True:
            try:
                ws = websocket.create_connection(
                    f"{CONFIG['ws_url']}{path}",
                    header=[f"Cookie: sessionid={self.me['session']}"],
                    origin=CONFIG["origin"],
                    timeout=60,
                )
                status = json.loads(ws.recv() or "{}")
            except (OSError, websocket.WebSocketException, ValueError) as exc:
                COUNTS[f"{self.kind} open failed"] += 1
                fire(self.environment, f"{self.kind}: open", started, exc)
                raise StopUser() from exc
            if status.get("state") == "connected" or status.get("type") == "lines":  # a workload stream: lines first
                break
            ws.close()
            if "No such pod" not in status.get("message", "") or time.monotonic() > deadline:
                COUNTS[f"{self.kind} open failed"] += 1
                fire(self.environment, f"{self.kind}: open", started, RuntimeError(f"refused: {str(status)[:300]}"))
                raise StopUser()
            time.sleep(1)
        self.ws = ws
        COUNTS[f"{self.kind} opened"] += 1
        fire(self.environment, f"{self.kind}: open", started)

    def recv(self, timeout: float) -> dict[str, Any] | None:
        """The next JSON message, None on a read timeout; a close from the portal is a failure."""
        assert self.ws is not None
        self.ws.settimeout(timeout)
        try:
            opcode, data = self.ws.recv_data(control_frame=True)
        except websocket.WebSocketTimeoutException:
            return None
        except (OSError, websocket.WebSocketException) as exc:
            self.lost(exc)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            code = int.from_bytes(data[:2], "big") if len(data) >= 2 else 1005
            self.lost(RuntimeError(f"closed by the portal: {code} {data[2:].decode(errors='replace')}"), code)
        if opcode in (websocket.ABNF.OPCODE_PING, websocket.ABNF.OPCODE_PONG):
            return self.recv(timeout)
        return json.loads(data)

    def lost(self, exc: BaseException, code: int = 0) -> None:
        COUNTS[f"{self.kind} lost"] += 1
        COUNTS[f"{self.kind} close code {code}"] += 1
        fire(self.environment, f"{self.kind}: held", time.perf_counter(), exc)
        self.ws = None
        raise StopUser()

    def on_stop(self) -> None:
        if self.ws is None:
            return
        started = time.perf_counter()
        try:
            self.ws.close(timeout=5)
            COUNTS[f"{self.kind} closed"] += 1
            fire(self.environment, f"{self.kind}: close", started)
        except (OSError, websocket.WebSocketException) as exc:
            COUNTS[f"{self.kind} close failed"] += 1
            fire(self.environment, f"{self.kind}: close", started, exc)
        self.ws = None


class Shell(Socket):
    """A terminal that types ``echo $((N+1000000))`` every few seconds and waits for the sum: a round trip
    through the portal, the apiserver, kwok and the pod's sandboxed shell."""

    kind = "shell"
    fixed_count = int(CONFIG.get("shell_count", 0))
    wait_time = between(*CONFIG.get("keystroke_every", [5.0, 15.0]))

    def on_start(self) -> None:
        self.me = _credentials("shells")
        pod = self.me["pod"]
        self.connect(f"/ws/exec/{pod['cluster']}/{pod['namespace']}/{pod['name']}/{pod['container']}/?shell=sh")
        assert self.ws is not None
        self.ws.send(json.dumps({"type": "resize", "cols": 120, "rows": 40}))
        self.seq = 0

    @task
    def command(self) -> None:
        self.seq += 1
        want = str(1_000_000 + self.seq)
        started = time.perf_counter()
        assert self.ws is not None
        self.ws.send(json.dumps({"type": "stdin", "data": f"echo $(({self.seq}+1000000))\r"}))
        seen, deadline = "", time.monotonic() + 30
        while want not in seen.replace(f"$(({self.seq}+1000000))", ""):
            left = deadline - time.monotonic()
            msg = self.recv(max(0.1, left)) if left > 0 else None
            if msg is None:
                COUNTS["shell command timed out"] += 1
                fire(self.environment, "shell: command", started, TimeoutError(f"no {want} in {seen[-200:]!r}"))
                return
            if msg.get("type") == "stdout":
                seen += msg["data"]
        COUNTS["shell commands"] += 1
        fire(self.environment, "shell: command", started)


class LogStream(Socket):
    """A followed log, read as it comes; counts the lines."""

    kind = "log"
    fixed_count = int(CONFIG.get("log_count", 0))
    wait_time = between(0, 0)

    def on_start(self) -> None:
        self.me = _credentials("logs")
        pod = self.me["pod"]
        if self.me.get("workload"):
            self.connect(f"/ws/workload-logs/{pod['namespace']}/{self.me['workload']}/?tail=10")
        else:
            self.connect(f"/ws/logs/{pod['cluster']}/{pod['namespace']}/{pod['name']}/{pod['container']}/?tail=10")

    @task
    def read(self) -> None:
        msg = self.recv(10)
        if msg and msg.get("type") == "lines":
            COUNTS["log lines"] += len(msg["lines"])
            COUNTS["log batches"] += 1
        elif msg and msg.get("type") == "status" and msg.get("state") == "error":
            COUNTS["log errors"] += 1
            fire(self.environment, "log: status", time.perf_counter(), RuntimeError(msg.get("message", "")))


@events.user_error.add_listener
def user_error(user_instance: Any, exception: BaseException, **_: Any) -> None:
    """An exception inside a task (a bug of this file or a malformed message) counts as an error too."""
    COUNTS[f"user error: {type(exception).__name__}: {exception}"[:200]] += 1


@events.quitting.add_listener
def dump(environment: Any, **_: Any) -> None:
    """Locust's own stats (every entry, with its response-time histogram) and errors, plus the socket counters."""
    path = os.environ.get("LOAD_STATS")
    if not path:
        return
    stats = environment.stats
    out = {"stats": stats.serialize_stats(), "errors": stats.serialize_errors(), "sockets": dict(COUNTS)}
    with open(path, "w") as fh:
        json.dump(out, fh)
