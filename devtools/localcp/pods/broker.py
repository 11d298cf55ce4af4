"""The broker: runs what podshim asks for inside the named pod's sandbox, as the pod user (podfs).

One unix socket per member cluster, bound into kwok's jail. A request is one JSON line
``{"pod": "<namespace>/<name>[/<container>]", "argv": [...]}`` carrying podshim's stdin/stdout/stderr (SCM_RIGHTS);
the answer is ``{"exit": N}`` once the command ended, or ``{"error": "..."}``. podshim going away (kwok ended
the stream) kills the sandbox. The pod name comes from the pod's kwok Exec rule, never from the client. A ``kill``
of PID 1 in a named container starts no sandbox: that container restarts (``restart``), as on a kubelet.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import selectors
import signal
import socket
import socketserver
import struct
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import podfs
from .restart import kills_pid_1

log = logging.getLogger(__name__)
MAX_REQUEST = 256 * 1024


class Sessions:
    """Running sandboxes per pod, so that deleting a pod ends its shells (before its files are removed)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_pod: dict[str, set[subprocess.Popen[bytes]]] = {}

    def add(self, pod: str, proc: subprocess.Popen[bytes], still_there: Callable[[], bool]) -> bool:
        """Track ``proc``, unless its pod went away meanwhile (then the caller ends it)."""
        with self._lock:
            if not still_there():
                return False
            self._by_pod.setdefault(pod, set()).add(proc)
            return True

    def discard(self, pod: str, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._by_pod.get(pod, set()).discard(proc)

    def kill_pod(self, pod: str) -> None:
        """Kill the pod's sandboxes and wait until they are gone (their mounts with them)."""
        with self._lock:
            procs = self._by_pod.pop(pod, set())
        for proc in procs:
            _end(proc)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill a sandbox: bwrap and its pid-1 reaper share the process group the broker gave bwrap; the reaper's
    death ends every process of the sandbox's pid namespace (its parent-death signal alone is not enough:
    it does not survive bwrap's credential changes)."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _read_request(conn: socket.socket) -> tuple[dict[str, object], list[int]]:
    data, fds = b"", []
    while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
        chunk, got, _flags, _addr = socket.recv_fds(conn, 65536, 8)
        fds += got
        if not chunk:
            break
        data += chunk
    return json.loads(data), fds


def _target(value: object) -> tuple[str | None, str]:
    """("<namespace>/<name>", the container or "") from the Exec rule's ``PINCONSOLE_POD``."""
    if not isinstance(value, str):
        return None, ""
    parts = value.split("/")
    return "/".join(parts[:2]), (parts[2] if len(parts) > 2 else "")


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
    # socketserver listens with a backlog of 5: 25 shells opened at once overflowed it and the 6th podshim's
    # connect failed with EAGAIN (exit 126, "broker unavailable"), which capped the idle-shell bench at 69-444.
    request_queue_size = 1024

    def __init__(
        self, path: Path, lookup: Callable[[str], Any], bwrap: str, restart: Callable[[str, str], str | None]
    ) -> None:
        path.unlink(missing_ok=True)
        # A unix socket's path is at most 107 bytes, and a state dir under a deep temp dir (pytest-xdist's
        # popen-gwN level) is longer: bind through the directory's fd (/proc/self/fd/N/broker.sock), as short
        # whatever the directory's path; the socket still appears at ``path``.
        directory = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            super().__init__(f"/proc/self/fd/{directory}/{path.name}", _Handler)
        finally:
            os.close(directory)
        os.chmod(path, 0o666)  # noqa: S103 - podshim, run as the pod user in kwok's jail, connects
        self.lookup = lookup  # "<namespace>/<name>" -> the set-up pod (with .fs) or None
        self.bwrap = bwrap
        self.restart = restart  # ("<namespace>/<name>", container) -> None once restarted, else why not
        self.sessions = Sessions()

    def run(self, req: dict[str, object], fds: list[int], conn: socket.socket) -> dict[str, object]:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        if uid != podfs.POD_UID:  # every kwok Exec rule of ours runs podshim as the pod user; nothing else asks
            return {"error": f"refused: only the pod user may start commands (uid {uid})"}
        target, argv = req.get("pod"), req.get("argv")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) and "\0" not in a for a in argv):
            return {"error": "no command"}
        if len(fds) != 3:
            return {"error": "stdin, stdout and stderr are required"}
        pod, container = _target(target)
        if pod is not None and container and kills_pid_1(argv):
            began = time.monotonic()
            why = self.restart(pod, container)
            # the operator gives an exec 20 s: a late or refused answer here is why a restart became a pod deletion
            log.info("%s: restart of %s answered in %.2f s: %s", pod, container, time.monotonic() - began, why or "ok")
            return {"exit": 0} if why is None else {"error": why}
        found = self.lookup(pod) if isinstance(pod, str) else None
        if found is None:
            return {"error": "this pod's sandbox is not set up yet (try again in a moment), or the pod opted out"}
        root_fd = podfs.open_dir_nofollow(found.fs)
        try:
            tty = os.isatty(fds[0])
            hostname = str(pod).rsplit("/", 1)[-1]
            env = found.env_of(container)
            cmd = podfs.sandbox_argv(self.bwrap, root_fd, hostname, list(argv), tty=tty, container_env=env)
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
        if not self.sessions.add(str(pod), proc, lambda: self.lookup(str(pod)) is found):
            _end(proc)
            return {"error": "the pod was deleted"}
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
                        _end(proc)
                        sel.unregister(conn)
        return proc.wait()
    finally:
        os.close(pidfd)
