"""The broker: runs what podshim asks for inside the named pod's sandbox, as the pod user (podfs).

One unix socket per member cluster, bound into kwok's jail. A request is one JSON line
``{"pod": "<namespace>/<name>", "argv": [...]}`` carrying podshim's stdin/stdout/stderr (SCM_RIGHTS); the
answer is ``{"exit": N}`` once the command ended, or ``{"error": "..."}``. kwok's side of the exec going away
hangs the session up, as a kubelet's closing pty would: SIGHUP (and SIGCONT) to every process of the sandbox,
then the sandbox is killed after ``HANGUP_GRACE`` seconds. kwok's side is gone when podshim goes (kwok ended the
stream and killed it), or when nobody reads the command's stdout or stderr pipe any more (kwok closes it once
the stream to the client broke). The pod name comes from the pod's kwok Exec rule, never from the client.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import signal
import socket
import socketserver
import stat
import struct
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import podfs

log = logging.getLogger(__name__)
MAX_REQUEST = 256 * 1024
HANGUP_GRACE = 2.0  # seconds a hung-up session has to end (its SIGHUP traps) before it is killed


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


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (the sandbox's: bwrap's reaper, the command and everything it started)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                raw = fh.read()
        except OSError:
            continue
        ppid = int(raw[raw.rindex(b")") + 2 :].split()[1])  # the name may hold spaces and parentheses
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children.get(child, [])
    return found


def _hangup(proc: subprocess.Popen[bytes]) -> None:
    """End a session whose terminal went away, as a pty hangup does: SIGHUP and SIGCONT to the sandbox's processes
    (the shell and its jobs; bwrap's reaper ignores them), ``HANGUP_GRACE`` seconds to go, then kill the sandbox."""
    for sig in (signal.SIGHUP, signal.SIGCONT):
        for pid in _descendants(proc.pid):
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=HANGUP_GRACE)
    _end(proc)


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
    # socketserver listens with a backlog of 5: 25 shells opened at once overflowed it and the 6th podshim's
    # connect failed with EAGAIN (exit 126, "broker unavailable"), which capped the idle-shell bench at 69-444.
    request_queue_size = 1024

    def __init__(self, path: Path, lookup: Callable[[str], Any], bwrap: str) -> None:
        path.unlink(missing_ok=True)
        super().__init__(str(path), _Handler)
        os.chmod(path, 0o666)  # noqa: S103 - podshim, run as the pod user in kwok's jail, connects
        self.lookup = lookup  # "<namespace>/<name>" -> the set-up pod (with .fs) or None
        self.bwrap = bwrap
        self.sessions = Sessions()

    def run(self, req: dict[str, object], fds: list[int], conn: socket.socket) -> dict[str, object]:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        if uid != podfs.POD_UID:  # every kwok Exec rule of ours runs podshim as the pod user; nothing else asks
            return {"error": f"refused: only the pod user may start commands (uid {uid})"}
        pod, argv = req.get("pod"), req.get("argv")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) and "\0" not in a for a in argv):
            return {"error": "no command"}
        if len(fds) != 3:
            return {"error": "stdin, stdout and stderr are required"}
        found = self.lookup(pod) if isinstance(pod, str) else None
        if found is None:
            return {"error": "this pod's sandbox is not set up yet (try again in a moment), or the pod opted out"}
        root_fd = podfs.open_dir_nofollow(found.fs)
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
        # kwok's reading end of an output pipe: closed once the client's stream broke (a pty never says so)
        outputs = [os.dup(fd) for fd in dict.fromkeys(fds[1:]) if stat.S_ISFIFO(os.fstat(fd).st_mode)]
        for fd in fds:
            os.close(fd)
        fds.clear()
        try:
            if not self.sessions.add(str(pod), proc, lambda: self.lookup(str(pod)) is found):
                _end(proc)
                return {"error": "the pod was deleted"}
            try:
                return {"exit": _exit_code(_wait(proc, conn, outputs))}
            finally:
                self.sessions.discard(str(pod), proc)
        finally:
            for fd in outputs:
                os.close(fd)


def _wait(proc: subprocess.Popen[bytes], conn: socket.socket, outputs: list[int]) -> int:
    """The sandbox's exit status; hangs the session up when kwok's side goes away first: podshim hangs up, or
    the reading end of an output pipe (``outputs``: our copies of its writing end) is closed."""
    pidfd = os.pidfd_open(proc.pid)
    conn.settimeout(None)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(conn, select.POLLIN)
    for fd in outputs:
        poller.register(fd, 0)  # a pipe's writing end reports POLLERR once its reading end is closed
    try:
        while proc.poll() is None:
            for fd, _event in poller.poll():
                if fd == conn.fileno():
                    with contextlib.suppress(OSError):
                        if conn.recv(4096):
                            continue
                elif fd not in outputs:
                    continue
                _hangup(proc)
                return proc.wait()
        return proc.wait()
    finally:
        os.close(pidfd)
