"""Benchmark: live debugging through the portal (not a test).

    .venv/bin/python bench/debugging.py [--state-dir /tmp/bench-debugging-cp] [--keystrokes 3000] [--lines 50000]
                                        [--streams 50] [--stream-lines 4000] [--shells 500] [--pods 10]
                                        [--runs 1] [--only keystroke,logs,idle]

One run on a local control plane (one member with kwok nodes, pods confined in their own sandbox; started in
--state-dir and stopped at the end unless one already runs there). The portal runs as ONE ASGI process of its own
(``uvicorn console.asgi:application``, one worker) on PostgreSQL and Redis (the test harness's starters), so its
memory is measured alone (VmRSS from /proc). Clients connect with an API token, as the CLI does.

1. Keystroke round trip: one character sent, until its echo comes back from the pod's TTY; p50/p99 through the
   portal's websocket, against ``kubectl exec -it`` on a pseudo-terminal (the direct path), against the portal's own
   exec client (``debugging.kubeexec``, what the portal uses towards the apiserver), the kubernetes Python client's
   exec websocket (what it used before), and the smallest Python hops (``keyrelay.py``: a websockets server relaying
   to ``kubeexec``, nothing of the portal; ``leanrelay.py``: sans-I/O protocols in ``asyncio.Protocol`` callbacks,
   nothing left to remove), the portal and keyrelay also through a blocking ``wsproto`` client (read as
   kubectl is read: the measuring client's own cost), and the CPU each hop's process spends per keystroke. Paired:
   all paths
   are open at once and each keystroke goes to every path in turn, the order rotating (the machine is shared: its
   load moves, and back-to-back rounds compared different moments); --keystrokes per path (3,000: a p99 from the
   30 slowest), the load average every 200 keystrokes, the p99 ratio in 5 consecutive blocks to show its spread.
   --runs paired runs; ``keystroke`` is the median one.
2. Log throughput: a file log (``tail -F`` over exec, ``?file=``: kwok's console logs are written at one line
   per second, so a file is the only source that can be pushed hard) into which the pod writes --lines lines
   after the stream opened; lines/s and MB/s as received by the client, for one stream and for --streams
   concurrent streams (each on its own file, --stream-lines each); the portal's memory per open stream.
3. Idle shells, in a fresh portal process (a clean baseline): --shells shells opened in batches of 25 and held
   open; the portal's memory after each batch, per shell, and how many it held (the last shells opened are
   checked to still answer), with its file descriptors against its RLIMIT_NOFILE.

Prints the figures and writes bench/results/debugging.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pty
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from provisioning import Backing  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from devtools.localcp import LocalControlPlane  # noqa: E402
from devtools.waiting import wait_for  # noqa: E402

PROJECT = "bench-dbg"
NS = f"proj-{PROJECT}"
RESULTS = ROOT / "bench" / "results" / "debugging.json"
LINE = '2026-11-23T08:00:00Z level=info msg="processed batch" items=123 latency_ms=45 ' + "x" * 30
LETTERS = "abcdefghijklmnopqrstuvwxyz"
# The portal processes run as production does: not DEBUG (the harness's Backing sets DEBUG=true for the bench's own
# Django, and DEBUG logs every query per thread: ~6 KiB per open socket here, not what production holds).
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "bench-only-" + "k" * 40,
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    "SECURE_SSL_REDIRECT": "false",
    "MALLOC_MMAP_THRESHOLD_": "131072",  # as deploy/helm/pinconsole/templates/web.yaml sets it
}


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))] if s else float("nan")


def summary(ms: list[float]) -> dict[str, float]:
    return {"p50_ms": round(pct(ms, 50), 2), "p99_ms": round(pct(ms, 99), 2), "max_ms": round(max(ms), 2), "n": len(ms)}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def threads_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def fds_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def nofile_of(pid: int) -> str:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return "/".join(line.split()[3:5])  # soft/hard
    return "?"


# -- setup ----------------------------------------------------------------------------------------------------


def setup(cp: LocalControlPlane, pods: int) -> tuple[str, list[str], Any]:
    """The portal's database (user, project, clusters) and the pods; (API token, pod names, member ApiClient)."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from kubernetes import client as k8s
    from kubernetes.client.rest import ApiException

    from accounts.services import create_api_token
    from clusters import runtime
    from clusters.models import Cluster
    from projects.models import Membership, Project

    call_command("migrate", verbosity=0, interactive=False)
    call_command(
        "import_clusters", "--kubeconfig", str(cp.kubeconfig_path), *[f"--zone={c.name}={c.zone}" for c in cp.clusters]
    )
    user, _ = get_user_model().objects.get_or_create(username="bench-dev")
    project, _ = Project.objects.get_or_create(name=PROJECT, defaults={"team": "bench", "cost_center": "CC-1"})
    Membership.objects.get_or_create(project=project, user=user, defaults={"role": "owner"})
    _, token = create_api_token(user=user, name=f"bench-{time.time_ns()}", days=1)
    api = runtime.api_for(Cluster.objects.get(name="member-a"))
    core = k8s.CoreV1Api(api)
    with contextlib.suppress(ApiException):
        core.create_namespace(k8s.V1Namespace(metadata=k8s.V1ObjectMeta(name=NS)))
    names = [f"dbg-{i}" for i in range(pods)]
    for name in names:
        try:
            core.create_namespaced_pod(
                NS,
                k8s.V1Pod(
                    metadata=k8s.V1ObjectMeta(name=name, labels={"pincompute.io/workload": "dbg"}),
                    spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="app", image="busybox")]),
                ),
            )
        except ApiException as exc:
            if exc.status != 409:
                raise

    def running() -> bool:
        return all(core.read_namespaced_pod(n, NS).status.phase == "Running" for n in names)

    wait_for(running, timeout=120, interval=0.5, what="bench pods Running")
    return token, names, api


def serve(env: dict[str, str], workdir: Path) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    log = (workdir / f"uvicorn-{port}.log").open("wb")
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "uvicorn", os.environ.get("BENCH_ASGI_APP", "console.asgi:application")),
            *("--port", str(port), "--host", "127.0.0.1"),
            *("--log-level", "warning", "--lifespan", "off", "--ws-max-queue", "64"),
            *(("--ws-per-message-deflate", "false") if not os.environ.get("BENCH_WS_DEFLATE") else ()),
            *os.environ.get("BENCH_UVICORN_ARGS", "").split(),  # e.g. "--ws websockets-sansio", to compare
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )

    def listening() -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    wait_for(listening, timeout=60, interval=0.2, what="uvicorn listening")
    return proc, port


# -- the websocket client -------------------------------------------------------------------------------------


class Portal:
    def __init__(self, port: int, token: str) -> None:
        self.base, self.port, self.token = f"ws://127.0.0.1:{port}", port, token

    async def connect(self, path: str) -> Any:
        from websockets.asyncio.client import connect

        return await connect(
            self.base + path,
            additional_headers={"Authorization": f"Bearer {self.token}"},
            origin=f"http://127.0.0.1:{self.base.rsplit(':', 1)[1]}",
            max_size=None,
            open_timeout=60,
            ping_interval=None,
        )

    async def shell(self, pod: str, shell: str = "sh") -> Any:
        """An open shell, its prompt read. The portal's caches may still be filling: retried on 4404."""
        for _ in range(60):
            ws = await self.connect(f"/ws/exec/member-a/{NS}/{pod}/app/?shell={shell}")
            status = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if status.get("state") == "connected":
                await ws.send(json.dumps({"type": "resize", "cols": 120, "rows": 40}))
                await read_until(ws, "$ ")
                return ws
            await ws.close()
            if "No such pod" not in status.get("message", ""):
                raise RuntimeError(f"shell refused: {status}")
            await asyncio.sleep(1)
        raise RuntimeError("the portal never saw the pod")


async def read_until(ws: Any, needle: str, timeout: float = 30) -> str:
    seen, deadline = "", time.monotonic() + timeout
    while needle not in seen:
        try:
            msg = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))
        except ConnectionClosed as closed:  # say what the shell printed (a sandbox's refusal) before it ended
            raise RuntimeError(f"{closed}; output: {seen[-300:]!r}") from None
        if msg.get("type") == "stdout":
            seen += msg["data"]
    return seen


# -- 1. keystrokes --------------------------------------------------------------------------------------------
#
# Paired: every path is open at once and each keystroke goes to every path in turn (the order rotating), so the
# machine's load at any moment hits all of them alike; a path's samples are its keystrokes' round trips.


class PortalKeys:
    """A shell through the portal's websocket."""

    def __init__(self, portal: Portal, pod: str) -> None:
        self.portal, self.pod, self.ws = portal, pod, None

    async def open(self) -> None:
        self.ws = await self.portal.shell(self.pod)

    async def key(self, ch: str) -> float:
        t0 = time.perf_counter()
        await self.ws.send(json.dumps({"type": "stdin", "data": ch}))
        await read_until(self.ws, ch)
        return (time.perf_counter() - t0) * 1000

    async def kill_line(self) -> None:
        await self.ws.send(json.dumps({"type": "stdin", "data": "\x15"}))

    async def drain(self) -> None:
        with contextlib.suppress(TimeoutError):
            while True:
                await asyncio.wait_for(self.ws.recv(), 0.01)

    async def close(self) -> None:
        await self.ws.close()


class RelayKeys(PortalKeys):
    """A shell through ``keyrelay.py``: the smallest Python hop (websockets + kubeexec, nothing of the portal)."""

    def __init__(self, port: int, pod: str) -> None:
        self.port, self.pod, self.ws = port, pod, None

    async def open(self) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(f"ws://127.0.0.1:{self.port}/{self.pod}", compression=None)
        await self.ws.send(json.dumps({"type": "resize", "cols": 120, "rows": 40}))
        await read_until(self.ws, "$ ")


class BlockingPortalKeys:
    """A shell through the portal's websocket, read the way ``KubectlKeys`` reads kubectl: a blocking socket and a
    sans-IO websocket codec (``wsproto``), no event loop in the measuring client. The browser's terminal is not a
    Python asyncio client either: this path tells what the portal adds, not what the bench's own client costs."""

    def __init__(self, port: int, path: str, headers: list[tuple[bytes, bytes]]) -> None:
        self.port, self.path, self.headers = port, path, headers
        self.sock: socket.socket | None = None
        self.ws: Any = None
        self.text = ""

    async def open(self) -> None:
        await asyncio.to_thread(self._open)

    def _open(self) -> None:
        from wsproto import ConnectionType, WSConnection
        from wsproto.events import Request

        self.sock = socket.create_connection(("127.0.0.1", self.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.sock.sendall(
            self.ws.send(Request(host=f"127.0.0.1:{self.port}", target=self.path, extra_headers=self.headers))
        )
        self._accepted(60)
        self._send({"type": "resize", "cols": 120, "rows": 40})
        self._until("$ ", 60)

    def _accepted(self, timeout: float) -> None:
        from wsproto.events import AcceptConnection

        assert self.sock is not None
        self.sock.settimeout(timeout)
        while True:
            self.ws.receive_data(self.sock.recv(65536))
            for event in self.ws.events():
                if isinstance(event, AcceptConnection):
                    return
                raise RuntimeError(f"refused: {event}")

    def _message(self, timeout: float) -> str:
        """The next whole text message (the handshake's answer consumed on the way)."""
        from wsproto.events import CloseConnection, Ping, RejectConnection, TextMessage

        assert self.sock is not None
        self.sock.settimeout(timeout)
        while True:
            for event in self.ws.events():
                if isinstance(event, TextMessage):
                    self.text += event.data
                    if event.message_finished:
                        text, self.text = self.text, ""
                        return text
                elif isinstance(event, Ping):  # the servers' keepalive
                    self.sock.sendall(self.ws.send(event.response()))
                elif isinstance(event, (CloseConnection, RejectConnection)):
                    raise RuntimeError(f"closed: {event}")
            data = self.sock.recv(65536)
            if not data:
                raise RuntimeError("connection closed")
            self.ws.receive_data(data)

    def _send(self, message: dict[str, Any]) -> None:
        from wsproto.events import Message

        assert self.sock is not None
        self.sock.sendall(self.ws.send(Message(data=json.dumps(message))))

    def _until(self, needle: str, timeout: float) -> None:
        seen = ""
        while needle not in seen:
            msg = json.loads(self._message(timeout))
            if msg.get("type") == "stdout":
                seen += msg["data"]
            elif msg.get("type") == "status" and msg.get("state") not in (None, "connected"):
                raise RuntimeError(f"shell refused: {msg}")

    async def key(self, ch: str) -> float:
        t0 = time.perf_counter()
        self._send({"type": "stdin", "data": ch})
        self._until(ch, 30)
        return (time.perf_counter() - t0) * 1000

    async def kill_line(self) -> None:
        self._send({"type": "stdin", "data": "\x15"})

    async def drain(self) -> None:
        with contextlib.suppress(TimeoutError, OSError):
            while True:
                self._message(0.01)

    async def close(self) -> None:
        from wsproto.events import CloseConnection

        assert self.sock is not None
        with contextlib.suppress(Exception):
            self.sock.sendall(self.ws.send(CloseConnection(code=1000)))
        self.sock.close()


class KubectlKeys:
    """``kubectl exec -it`` on a pseudo-terminal (kubectl puts it in raw mode; the pod's TTY echoes). Blocking: the
    bench's loop waits with it (nothing else is in flight while one path's keystroke is)."""

    def __init__(self, kubeconfig: str, pod: str) -> None:
        self.kubeconfig, self.pod, self.pid, self.fd = kubeconfig, pod, 0, -1
        self.cpu0 = self.cpu = 0.0

    async def open(self) -> None:
        kubectl = shutil.which("kubectl") or "kubectl"
        argv = [kubectl, "--kubeconfig", self.kubeconfig, "--context", "member-a", "exec", "-it", "-n", NS, self.pod]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execv(kubectl, [*argv, "-c", "app", "--", "/bin/sh"])
        await asyncio.to_thread(self.until, b"$ ")
        self.cpu0 = cpu_seconds(self.pid)

    def until(self, needle: bytes, timeout: float = 30) -> None:
        seen, deadline = b"", time.monotonic() + timeout
        while needle not in seen:
            ready, _, _ = select.select([self.fd], [], [], max(0.01, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError(f"kubectl: {needle!r} not seen in {seen[-200:]!r}")
            seen += os.read(self.fd, 65536)

    async def key(self, ch: str) -> float:
        t0 = time.perf_counter()
        os.write(self.fd, ch.encode())
        self.until(ch.encode())
        return (time.perf_counter() - t0) * 1000

    async def kill_line(self) -> None:
        os.write(self.fd, b"\x15")

    async def drain(self) -> None:
        with contextlib.suppress(OSError):
            while select.select([self.fd], [], [], 0)[0]:
                os.read(self.fd, 65536)

    async def close(self) -> None:
        self.cpu = cpu_seconds(self.pid) - self.cpu0  # the keystrokes' CPU in kubectl
        with contextlib.suppress(OSError):
            os.write(self.fd, b"\x04")
        with contextlib.suppress(OSError):
            os.kill(self.pid, 15)
        await asyncio.to_thread(os.waitpid, self.pid, 0)
        os.close(self.fd)


class KubeexecKeys:
    """The portal's own exec client (``debugging.kubeexec``) straight to the apiserver, without the portal."""

    def __init__(self, api: Any, pod: str) -> None:
        from debugging.kubeexec import ExecSession

        self.session = ExecSession(api, NS, pod, "app", ["/bin/sh"])
        self.received: asyncio.Queue[Any] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        await self.session.open()

        async def reader() -> None:  # a queue to wait on (cancelling a wait on the output itself would end it)
            async for item in self.session.output():
                self.received.put_nowait(item)

        self.task = asyncio.create_task(reader())
        await self.until("$ ")

    async def until(self, needle: str, timeout: float = 30) -> None:
        seen = ""
        while needle not in seen:
            item = await asyncio.wait_for(self.received.get(), timeout)
            assert isinstance(item, str), item
            seen += item

    async def key(self, ch: str) -> float:
        t0 = time.perf_counter()
        await self.session.write_stdin(ch)
        await self.until(ch)
        return (time.perf_counter() - t0) * 1000

    async def kill_line(self) -> None:
        await self.session.write_stdin("\x15")

    async def drain(self) -> None:
        while not self.received.empty():
            self.received.get_nowait()

    async def close(self) -> None:
        await self.session.close()
        if self.task is not None:
            self.task.cancel()


class ClientKeys:
    """The kubernetes Python client's exec websocket (what the portal used before ``kubeexec``). Blocking."""

    def __init__(self, api: Any, pod: str) -> None:
        self.api, self.pod, self.ws, self.private = api, pod, None, None

    async def open(self) -> None:
        from kubernetes import client as k8s
        from kubernetes.stream import stream as k8s_stream

        self.private = k8s.ApiClient(configuration=self.api.configuration)
        self.ws = await asyncio.to_thread(
            k8s_stream,
            k8s.CoreV1Api(self.private).connect_get_namespaced_pod_exec,
            self.pod,
            NS,
            container="app",
            command=["/bin/sh"],
            stdin=True,
            stdout=True,
            stderr=True,
            tty=True,
            _preload_content=False,
        )
        await asyncio.to_thread(self.until, "$ ")

    def until(self, needle: str, timeout: float = 30) -> None:
        seen, deadline = "", time.monotonic() + timeout
        while needle not in seen:
            if time.monotonic() > deadline:
                raise TimeoutError(f"client: {needle!r} not seen")
            self.ws.update(timeout=0.05)
            if self.ws.peek_stdout():
                seen += self.ws.read_stdout()

    async def key(self, ch: str) -> float:
        t0 = time.perf_counter()
        self.ws.write_stdin(ch)
        self.until(ch)
        return (time.perf_counter() - t0) * 1000

    async def kill_line(self) -> None:
        self.ws.write_stdin("\x15")

    async def drain(self) -> None:
        self.ws.update(timeout=0)
        if self.ws.peek_stdout():
            self.ws.read_stdout()

    async def close(self) -> None:
        self.ws.close()
        self.private.close()


async def keystrokes_paired(paths: dict[str, Any], n: int, blocks: int = 5) -> dict[str, Any]:
    """``n`` keystrokes to every path, interleaved: keystroke i goes to each path in turn, starting at a rotating
    path. Every 40 keystrokes the lines are killed (^U) and the echoes drained. Samples in ``blocks`` consecutive
    blocks too (the ratio per block shows how stable it is), and the load average along the run."""
    names = list(paths)
    for path in paths.values():
        await path.open()
    samples: dict[str, list[float]] = {name: [] for name in names}
    load: list[list[float]] = []
    t0 = time.perf_counter()
    try:
        for i in range(n + 5):
            if i % 200 == 0:
                load.append([round(x, 2) for x in os.getloadavg()])
            ch = LETTERS[i % 26]
            for k in range(len(names)):
                name = names[(i + k) % len(names)]
                ms = await paths[name].key(ch)
                if i >= 5:  # the first few warm the paths
                    samples[name].append(ms)
            if i % 40 == 39:
                for path in paths.values():
                    await path.kill_line()
                await asyncio.sleep(0.05)
                for path in paths.values():
                    await path.drain()
    finally:
        for path in paths.values():
            with contextlib.suppress(Exception):
                await path.close()
    size = max(1, n // blocks)
    per_block = [{name: samples[name][b * size : (b + 1) * size] for name in names} for b in range(blocks)]
    return {
        "seconds": round(time.perf_counter() - t0, 1),
        "load": load,
        "samples": samples,
        "blocks": [
            {name: summary(block[name]) for name in names}
            | {"ratio_p99": round(pct(block["portal"], 99) / pct(block["kubectl_exec"], 99), 2)}
            for block in per_block
        ],
    }


# -- 2. log throughput ----------------------------------------------------------------------------------------


def pod_sh(api: Any, pod: str, script: str) -> str:
    from kubernetes import client as k8s
    from kubernetes.stream import stream as k8s_stream

    with k8s.ApiClient(configuration=api.configuration) as private:
        return str(
            k8s_stream(
                k8s.CoreV1Api(private).connect_get_namespaced_pod_exec,
                pod,
                NS,
                container="app",
                command=["/bin/sh", "-c", script],
                stdout=True,
                stderr=True,
                stdin=False,
                tty=False,
            )
        )


async def follow_file(portal: Portal, pod: str, path: str) -> Any:
    ws = await portal.connect(f"/ws/logs/member-a/{NS}/{pod}/app/?file={path}&tail=0")
    while True:  # until tail runs
        msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
        if msg.get("type") == "status" and msg.get("message", "").startswith("Following"):
            return ws
        if msg.get("type") == "status" and msg.get("state") == "error":
            raise RuntimeError(f"log stream refused: {msg}")


async def count_lines(ws: Any, want: int, timeout: float) -> dict[str, Any]:
    got = dropped = size = 0
    first = last = None
    deadline = time.monotonic() + timeout
    while got + dropped < want and time.monotonic() < deadline:
        try:
            msg = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, min(10, deadline - time.monotonic()))))
        except TimeoutError:
            break
        if msg.get("type") == "lines":
            now = time.perf_counter()
            first = first or now
            last = now
            got += len(msg["lines"])
            size += sum(len(line["text"]) + 1 for line in msg["lines"])
        elif msg.get("type") == "status" and "dropped" in msg.get("message", ""):
            dropped += int(msg["message"].split()[0])
    return {"lines": got, "dropped": dropped, "bytes": size, "first": first, "last": last}


async def throughput(portal: Portal, api: Any, pods: list[str], streams: int, lines: int, pid: int) -> dict[str, Any]:
    """``streams`` file streams (one file each, spread over the pods); each file gets ``lines`` lines."""
    files = [(pods[i % len(pods)], f"/tmp/bench-{streams}-{i}.log") for i in range(streams)]
    for pod in sorted({p for p, _ in files}):
        mine = " ".join(f for p, f in files if p == pod)
        await asyncio.to_thread(pod_sh, api, pod, f"for f in {mine}; do : > $f; done")
    rss0 = rss_kib(pid)
    sockets = [await follow_file(portal, pod, path) for pod, path in files]
    await asyncio.sleep(1)
    rss_open = rss_kib(pid)
    threads_open = threads_of(pid)
    counters = [asyncio.create_task(count_lines(ws, lines, timeout=120)) for ws in sockets]
    t0 = time.perf_counter()
    writers = []
    for pod in sorted({p for p, _ in files}):
        mine = [f for p, f in files if p == pod]
        script = " ".join(f"(yes '{LINE}' | head -n {lines} >> {f}) &" for f in mine) + " wait"
        writers.append(asyncio.to_thread(pod_sh, api, pod, script))
    await asyncio.gather(*writers)
    results = await asyncio.gather(*counters)
    rss_flowing = rss_kib(pid)
    for ws in sockets:
        await ws.close()
    got = sum(r["lines"] for r in results)
    size = sum(r["bytes"] for r in results)
    dropped = sum(r["dropped"] for r in results)
    lasts = [r["last"] for r in results if r["last"]]
    seconds = (max(lasts) - t0) if lasts else float("nan")
    return {
        "streams": streams,
        "lines_written": lines * streams,
        "lines_received": got,
        "lines_dropped_by_portal": dropped,
        "seconds": round(seconds, 2) if lasts else None,  # None: nothing arrived (the run says so, not a crash)
        "lines_per_s": round(got / seconds) if lasts else None,
        "mb_per_s": round(size / seconds / 1e6, 2) if lasts else None,
        "per_stream_lines_per_s": round(got / seconds / streams) if lasts else None,
        "portal_rss_kib_before": rss0,
        "portal_rss_kib_open": rss_open,
        "portal_rss_kib_flowing": rss_flowing,
        "portal_kib_per_open_stream": round((rss_open - rss0) / streams, 1),
        "portal_threads_open": threads_open,
    }


# -- 3. idle shells -------------------------------------------------------------------------------------------


async def idle_shells(portal: Portal, pods: list[str], target: int, pid: int) -> dict[str, Any]:
    rss0, threads0 = rss_kib(pid), threads_of(pid)
    held: list[Any] = []
    steps: list[dict[str, Any]] = []
    error = ""
    while len(held) < target and not error:
        batch = min(25, target - len(held))
        start, t0 = len(held), time.perf_counter()
        opened = await asyncio.gather(
            *[portal.shell(pods[(start + i) % len(pods)]) for i in range(batch)], return_exceptions=True
        )
        for item in opened:
            if isinstance(item, BaseException):
                error = f"{type(item).__name__}: {item}"[:300]
            else:
                held.append(item)
        opened_s = round(time.perf_counter() - t0, 2)  # the batch's 25 handshakes, exec opens and prompts
        await asyncio.sleep(2)
        rss = rss_kib(pid)
        per = round((rss - rss0) / max(1, len(held)), 1)
        steps.append({"shells": len(held), "rss_kib": rss, "kib_per_shell": per, "batch_open_s": opened_s})
        print(
            f"  {len(held)} idle shells: portal RSS {rss / 1024:.0f} MiB, threads {threads_of(pid)}, fds {fds_of(pid)}"
            f", batch opened in {opened_s} s",
            flush=True,
        )
    alive = 0
    for ws in held[-10:]:  # the last ones still answer
        await ws.send(json.dumps({"type": "stdin", "data": "echo alive-$((20+22))\r"}))
        with contextlib.suppress(TimeoutError):
            await read_until(ws, "alive-42", timeout=20)
            alive += 1
    rss = rss_kib(pid)
    threads, fds = threads_of(pid), fds_of(pid)
    for ws in held:
        await ws.close()
    return {
        "target": target,
        "held": len(held),
        "checked_alive": f"{alive}/{min(10, len(held))}",
        "portal_rss_kib_before": rss0,
        "portal_rss_kib_held": rss,
        "kib_per_idle_shell": round((rss - rss0) / max(1, len(held)), 1),
        "portal_threads_before": threads0,
        "portal_threads_held": threads,
        "portal_fds_held": fds,
        "portal_nofile_soft_hard": nofile_of(pid),
        "steps": steps,
        "error": error,
    }


async def keystroke_run(
    portal: Portal, api: Any, pods: list[str], n: int, kubeconfig: str, ports: dict[str, int], pids: dict[str, int]
) -> dict[str, Any]:
    """One paired run of every path (``keystrokes_paired``), each on its own pod."""
    paths = {
        "portal": PortalKeys(portal, pods[0]),
        "python_relay": RelayKeys(ports["python_relay"], pods[4 % len(pods)]),
        "lean_relay": RelayKeys(ports["lean_relay"], pods[7 % len(pods)]),
        "kubectl_exec": KubectlKeys(kubeconfig, pods[1 % len(pods)]),
        "kubeexec": KubeexecKeys(api, pods[3 % len(pods)]),
        "python_client_exec": ClientKeys(api, pods[2 % len(pods)]),
        "portal_blocking_client": BlockingPortalKeys(
            portal.port,
            f"/ws/exec/member-a/{NS}/{pods[5 % len(pods)]}/app/?shell=sh",
            [
                (b"authorization", f"Bearer {portal.token}".encode()),
                (b"origin", f"http://127.0.0.1:{portal.port}".encode()),
            ],
        ),
        "python_relay_blocking_client": BlockingPortalKeys(ports["python_relay"], f"/{pods[6 % len(pods)]}", []),
    }
    cpu0 = {name: cpu_seconds(pid) for name, pid in pids.items()}
    run = await keystrokes_paired(paths, n)
    # the CPU each hop's process spent per keystroke (two paths go through each, the echo included): what is
    # computing and what is waiting to be scheduled, of the hop's share of the round trip
    cpu = {
        f"{name}_cpu_us_per_keystroke": round((cpu_seconds(pid) - cpu0[name]) / (2 * n) * 1e6)
        for name, pid in pids.items()
    }
    cpu["kubectl_cpu_us_per_keystroke"] = round(paths["kubectl_exec"].cpu / n * 1e6)
    ms = run.pop("samples")
    ratio = {name: round(pct(ms[name], 99) / pct(ms["kubectl_exec"], 99), 2) for name in paths}
    return {
        "method": "paired: each keystroke to every path in turn (rotating order), all paths open at once",
        "load": run["load"],
        "seconds": run["seconds"],
        **{name: summary(ms[name]) for name in paths},
        "ratio_p50": round(pct(ms["portal"], 50) / pct(ms["kubectl_exec"], 50), 2),
        "ratio_p99": ratio["portal"],
        "ratio_p99_kubeexec": ratio["kubeexec"],
        "ratio_p50_python_relay": round(pct(ms["python_relay"], 50) / pct(ms["kubectl_exec"], 50), 2),
        "ratio_p99_python_relay": ratio["python_relay"],
        "ratio_p50_lean_relay": round(pct(ms["lean_relay"], 50) / pct(ms["kubectl_exec"], 50), 2),
        "ratio_p99_lean_relay": ratio["lean_relay"],
        "ratio_p50_blocking_client": round(pct(ms["portal_blocking_client"], 50) / pct(ms["kubectl_exec"], 50), 2),
        "ratio_p99_blocking_client": ratio["portal_blocking_client"],
        "ratio_p99_python_relay_blocking_client": ratio["python_relay_blocking_client"],
        **cpu,
        "goal_p99_ratio": 1.2,
        "blocks": run["blocks"],
    }


async def run(
    args: argparse.Namespace, portal: Portal, api: Any, pods: list[str], pid: int, kubeconfig: str
) -> dict[str, Any]:
    """Phases 1 and 2 on the portal process ``pid``."""
    out: dict[str, Any] = {}
    if "keystroke" in args.only:
        print("1. keystroke round trip (paired)", flush=True)
        await portal_warm(portal, pods)  # caches filled, first exec done
        runs = []
        for i in range(args.runs):
            pids = {"portal": pid, "python_relay": args.relay_pid, "lean_relay": args.lean_pid}
            ports = {"python_relay": args.relay_port, "lean_relay": args.lean_port}
            runs.append(await keystroke_run(portal, api, pods, args.keystrokes, kubeconfig, ports, pids))
            r = runs[-1]
            print(
                f"  run {i + 1} ({r['seconds']} s, load {r['load'][0][0]}-{max(x[0] for x in r['load'])}): portal "
                f"{r['portal']['p50_ms']}/{r['portal']['p99_ms']} ms, kubectl {r['kubectl_exec']['p50_ms']}/"
                f"{r['kubectl_exec']['p99_ms']} ms, kubeexec {r['kubeexec']['p50_ms']}/{r['kubeexec']['p99_ms']} ms, "
                f"python relay {r['python_relay']['p50_ms']}/{r['python_relay']['p99_ms']} ms, "
                f"ratio p50 {r['ratio_p50']} p99 {r['ratio_p99']} (relay {r['ratio_p99_python_relay']}), per block "
                f"{[b['ratio_p99'] for b in r['blocks']]}",
                flush=True,
            )
        ranked = sorted(runs, key=lambda r: r["ratio_p99"])
        out["keystroke"] = ranked[(len(ranked) - 1) // 2]
        out["keystroke_runs"] = {
            "runs": runs,
            "best_ratio_p99": ranked[0]["ratio_p99"],
            "median_ratio_p99": out["keystroke"]["ratio_p99"],
            "worst_ratio_p99": ranked[-1]["ratio_p99"],
        }
        print(json.dumps({k: v for k, v in out["keystroke"].items() if k != "blocks"}, indent=1), flush=True)
    if "logs" in args.only:
        print("2. log throughput", flush=True)
        await portal_warm(portal, pods)  # the portal's pod cache filled (a log stream is refused meanwhile)
        out["logs_one_stream"] = await throughput(portal, api, pods, 1, args.lines, pid)
        print(json.dumps(out["logs_one_stream"], indent=1), flush=True)
        out["logs_concurrent"] = await throughput(portal, api, pods, args.streams, args.stream_lines, pid)
        print(json.dumps(out["logs_concurrent"], indent=1), flush=True)
    return out


async def portal_warm(portal: Portal, pods: list[str]) -> None:
    """One shell opened and closed: the caches filled and the first exec's imports done, before the baseline."""
    ws = await portal.shell(pods[0])
    await ws.close()


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()  # uvicorn waits for open connections to close: not for long
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(15)


def start_relay(kubeconfig: str, script: str = "keyrelay.py") -> tuple[subprocess.Popen[bytes], int]:
    """A relay of ``bench/`` (``keyrelay.py``, ``leanrelay.py``) in a process of its own (as the portal is), and its
    port."""
    from tests.harness.services import free_port

    port = free_port()
    relay = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / script), str(port), kubeconfig, "member-a", NS],
        cwd=ROOT,
        env=dict(os.environ) | PRODUCTION,
        stdout=subprocess.PIPE,
    )
    assert relay.stdout is not None and relay.stdout.readline().strip() == b"ready", f"{script} did not start"
    return relay, port


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--state-dir", type=Path, default=Path("/tmp/bench-debugging-cp"))
    ap.add_argument("--nodes", type=int, default=10)
    ap.add_argument("--pods", type=int, default=10)
    ap.add_argument("--keystrokes", type=int, default=3000, help="per path")
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--streams", type=int, default=50)
    ap.add_argument("--stream-lines", type=int, default=4_000)
    ap.add_argument("--shells", type=int, default=500)
    ap.add_argument("--runs", type=int, default=1, help="paired keystroke runs (the median one is reported)")
    ap.add_argument("--only", default="keystroke,logs,idle", help="phases to run, comma-separated")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    args.only = set(args.only.split(","))

    cp = LocalControlPlane(args.state_dir, members=1, nodes_per_member=args.nodes)
    started = not cp.is_healthy()
    if started:
        cp.up(timeout=600)
    workdir = Path(tempfile.mkdtemp(prefix="bench-debugging-"))
    backing = Backing("postgres", workdir, 1)  # PostgreSQL and Redis (channel layer, cache), as in production
    backing.start()
    os.environ |= {
        "DEBUG_SOCKETS_PER_USER": "100000",  # measure, not cap
        "DEBUG_SHELL_IDLE_SECONDS": "3600",
        "API_READ_RATE_LIMIT": "1000000/min",
        "API_RATE_LIMIT": "1000000/min",
    }
    proc = None
    results: dict[str, Any] = {"load_at_start": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    try:
        token, pods, api = setup(cp, args.pods)
        proc, port = serve(dict(os.environ) | PRODUCTION, workdir)
        results["portal_rss_kib_at_start"] = rss_kib(proc.pid)
        relay, args.relay_port = start_relay(str(cp.kubeconfig_path))
        lean, args.lean_port = start_relay(str(cp.kubeconfig_path), "leanrelay.py")
        args.relay_pid, args.lean_pid = relay.pid, lean.pid
        try:
            results |= asyncio.run(run(args, Portal(port, token), api, pods, proc.pid, str(cp.kubeconfig_path)))
        finally:
            stop(relay)
            stop(lean)
        if "idle" in args.only:
            stop(proc)
            print("3. idle shells (a fresh portal process)", flush=True)
            proc, port = serve(dict(os.environ) | PRODUCTION, workdir)
            portal = Portal(port, token)
            asyncio.run(portal_warm(portal, pods))
            results["idle_shells"] = asyncio.run(idle_shells(portal, pods, args.shells, proc.pid))
            print(json.dumps({k: v for k, v in results["idle_shells"].items() if k != "steps"}, indent=1), flush=True)
    finally:
        if proc is not None:
            stop(proc)
        backing.stop()
        if started:
            cp.down()
    results["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    results["args"] = {k: str(v) for k, v in vars(args).items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    if "keystroke" in results:
        ks, runs = results["keystroke"], results["keystroke_runs"]
        print(
            f"\nkeystroke p50/p99 (paired, {ks['portal']['n']} a path): portal {ks['portal']['p50_ms']}/"
            f"{ks['portal']['p99_ms']} ms, kubectl exec {ks['kubectl_exec']['p50_ms']}/{ks['kubectl_exec']['p99_ms']}"
            f" ms, ratio p99 {ks['ratio_p99']}x (runs: best {runs['best_ratio_p99']}x, worst "
            f"{runs['worst_ratio_p99']}x)"
        )
    if "logs_one_stream" in results:
        one, many = results["logs_one_stream"], results["logs_concurrent"]
        print(
            f"logs, 1 stream: {one['lines_per_s']} lines/s, {one['mb_per_s']} MB/s; {many['streams']} streams: "
            f"{many['lines_per_s']} lines/s, {many['mb_per_s']} MB/s, {many['portal_kib_per_open_stream']} KiB each"
        )
    if "idle_shells" in results:
        idle = results["idle_shells"]
        print(f"idle shells: {idle['held']} held, {idle['kib_per_idle_shell']} KiB each (goal >= 500 at <= 100 KB)")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
