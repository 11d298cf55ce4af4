"""The broker: runs what podshim asks for inside the named pod's sandbox, as the pod user (podfs).

One unix socket per member cluster, bound into kwok's jail. A request is one JSON line
``{"pod": "<namespace>/<name>", "argv": [...]}`` carrying podshim's stdin/stdout/stderr (SCM_RIGHTS); the
answer is ``{"exit": N}`` once the command ended, or ``{"error": "..."}``. podshim going away (kwok ended
the stream) kills the sandbox. The pod name comes from the pod's kwok Exec rule, never from the client.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import selectors
import socket
import socketserver
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from . import podfs

log = logging.getLogger(__name__)
MAX_REQUEST = 256 * 1024


class Sessions:
    """Running sandboxes per pod, so that deleting a pod ends its shells."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_pod: dict[str, set[subprocess.Popen[bytes]]] = {}

    def add(self, pod: str, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._by_pod.setdefault(pod, set()).add(proc)

    def discard(self, pod: str, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._by_pod.get(pod, set()).discard(proc)

    def kill_pod(self, pod: str) -> None:
        with self._lock:
            procs = self._by_pod.pop(pod, set())
        for proc in procs:
            with contextlib.suppress(OSError):
                proc.kill()

    def count(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._by_pod.values())


def _read_request(conn: socket.socket) -> tuple[dict[str, object], list[int]]:
    data, fds = b"", []
    while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
        chunk, got, _flags, _addr = socket.recv_fds(conn, 65536, 8)
        fds += got
        if not chunk:
            break
        data += chunk
    return json.loads(data), fds


def _exit_code(rc: int) -> int:
    return 128 - rc if rc < 0 else rc


class _Handler(socketserver.BaseRequestHandler):
    server: BrokerServer

    def handle(self) -> None:
        conn: socket.socket = self.request
        conn.settimeout(10)
        fds: list[int] = []
        try:
            req, fds = _read_request(conn)
            answer = self.server.run(req, fds, conn)
        except (OSError, ValueError) as exc:
            answer = {"error": f"bad request: {exc}"}
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps(answer).encode() + b"\n")


class BrokerServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: Path, pod_fs: Callable[[str], Path | None], bwrap: str) -> None:
        path.unlink(missing_ok=True)
        super().__init__(str(path), _Handler)
        os.chmod(path, 0o666)  # noqa: S103 - podshim, run as the pod user in kwok's jail, connects
        self.pod_fs = pod_fs
        self.bwrap = bwrap
        self.sessions = Sessions()

    def run(self, req: dict[str, object], fds: list[int], conn: socket.socket) -> dict[str, object]:
        pod, argv = req.get("pod"), req.get("argv")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) and "\0" not in a for a in argv):
            return {"error": "no command"}
        if len(fds) != 3:
            return {"error": "stdin, stdout and stderr are required"}
        fs = self.pod_fs(pod) if isinstance(pod, str) else None
        if fs is None:
            return {"error": "this pod's sandbox is not set up yet (try again in a moment), or the pod opted out"}
        root_fd = podfs.open_dir_nofollow(fs)
        try:
            tty = os.isatty(fds[0])
            cmd = podfs.sandbox_argv(self.bwrap, root_fd, str(pod).rsplit("/", 1)[-1], list(argv), tty=tty)
            proc = subprocess.Popen(
                cmd,
                stdin=fds[0],
                stdout=fds[1],
                stderr=fds[2],
                pass_fds=(root_fd,),
                start_new_session=True,
                env={"PATH": "/usr/bin:/bin"},
                cwd="/",
            )
        except OSError as exc:
            return {"error": f"cannot start the sandbox: {exc}"}
        finally:
            os.close(root_fd)
        for fd in fds:
            os.close(fd)
        fds.clear()
        self.sessions.add(str(pod), proc)
        try:
            return {"exit": _exit_code(_wait(proc, conn))}
        finally:
            self.sessions.discard(str(pod), proc)


def _wait(proc: subprocess.Popen[bytes], conn: socket.socket) -> int:
    """The sandbox's exit status; kills it when podshim hangs up first."""
    pidfd = os.pidfd_open(proc.pid)
    conn.settimeout(None)
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(pidfd, selectors.EVENT_READ)
            sel.register(conn, selectors.EVENT_READ)
            while proc.poll() is None:
                for key, _ in sel.select():
                    if key.fileobj is conn and not conn.recv(4096):
                        proc.kill()  # --die-with-parent takes the whole sandbox down
                        sel.unregister(conn)
        return proc.wait()
    finally:
        os.close(pidfd)
