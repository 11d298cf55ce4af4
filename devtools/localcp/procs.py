"""Detached, supervised-by-pidfile processes and readiness probes.

Every process is started in its own session (``start_new_session=True``) so that it survives the
parent and so that stopping it can signal its whole process group. The pidfile stores
``<pid> <start-time-ticks>`` so a recycled pid is never mistaken for ours.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


class ComponentError(RuntimeError):
    """A component failed to start or become ready; carries its log tail."""

    def __init__(self, component: str, message: str, log_file: Path | None = None) -> None:
        self.component = component
        self.log_file = log_file
        tail = log_tail(log_file) if log_file else ""
        super().__init__(f"{component}: {message}" + (f"\n--- tail of {log_file} ---\n{tail}" if tail else ""))


def log_tail(path: Path | None, lines: int = 40) -> str:
    if path is None or not path.exists():
        return ""
    with path.open("rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 16384))
        data = fh.read().decode(errors="replace")
    return "\n".join(data.splitlines()[-lines:])


def free_port(preferred: int | None = None) -> int:
    """A free TCP port on 127.0.0.1 (``preferred`` if it is still free) for a server that starts later.

    Picked below the kernel's ephemeral range: a port the kernel handed out by ``bind(0)`` comes from that
    range, where it is soon reused as the local port of some outgoing connection, and a server started
    minutes later (dex, at the end of the suite) then finds it taken. A port is free only until its server binds
    it, so two processes picking at once could pick the same one (a clean-clone run: one worker's Mailpit found
    another's Redis on its port): each pytest-xdist worker picks from its own share of the range (``port_share``),
    and a process never hands out the same port twice."""
    if preferred and port_is_free(preferred):  # a server's own earlier port (a restart), even if handed out here
        _handed.add(preferred)
        return preferred
    low = _ephemeral_low()
    index, count = port_share()
    span = (low - max(1024, low - 12000)) // count
    first = max(1024, low - 12000) + index * span
    for _ in range(100):
        port = random.randrange(first, first + span)  # noqa: S311 - not a secret
        if port not in _handed and port_is_free(port):
            _handed.add(port)
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_handed: set[int] = set()


def port_share(environ: Mapping[str, str] = os.environ) -> tuple[int, int]:
    """(index, count): this pytest-xdist worker's share of the ports (``gw1`` of 3: the second third); (0, 1)
    outside a worker. Its child processes (a ``dev`` under test) inherit the share."""
    worker, count = environ.get("PYTEST_XDIST_WORKER", ""), environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if worker.startswith("gw") and worker[2:].isdigit() and count.isdigit() and int(count) > 0:
        return int(worker[2:]) % int(count), int(count)
    return 0, 1


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def port_is_free(port: int) -> bool:
    """Free for a server: like the Go servers started on it, the probe sets SO_REUSEADDR, so a port whose old
    connections linger in TIME_WAIT (a restart) is reused instead of replaced by a new one."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def start_ticks(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":  # zombie: as good as dead
        return None
    return fields[19]  # field 22 (starttime), counted after the ")"


def rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


@dataclass
class Proc:
    """One managed process: ``<run_dir>/<name>.pid`` and ``<log_dir>/<name>.log``."""

    name: str
    run_dir: Path
    log_dir: Path

    @property
    def pidfile(self) -> Path:
        return self.run_dir / f"{self.name}.pid"

    @property
    def log_file(self) -> Path:
        return self.log_dir / f"{self.name}.log"

    def pid(self) -> int | None:
        """The pid if the process recorded in the pidfile is alive, else None."""
        try:
            pid_s, ticks = self.pidfile.read_text().split()
            pid = int(pid_s)
        except (OSError, ValueError):
            return None
        return pid if start_ticks(pid) == ticks else None

    def alive(self) -> bool:
        return self.pid() is not None

    def start(self, argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None) -> int:
        """Start ``argv`` detached; returns the pid. No-op (returns pid) if already alive."""
        existing = self.pid()
        if existing:
            return existing
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with self.log_file.open("ab") as log:
            log.write(f"\n=== {time.strftime('%F %T')} start: {' '.join(argv)}\n".encode())
            log.flush()
            p = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=dict(env) if env is not None else None,
                cwd=cwd,
                start_new_session=True,
                close_fds=True,
            )
        ticks = None
        for _ in range(100):
            ticks = start_ticks(p.pid)
            if ticks:
                break
            time.sleep(0.01)
        self.pidfile.write_text(f"{p.pid} {ticks}\n")
        # Popen keeps a handle; drop it without waiting so the child is reaped by us only if it
        # exits while we are alive (avoids zombies in long-lived parents).
        with _REAPERS_LOCK:
            _REAPERS.append(p)
        return p.pid

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM the process group, wait, then SIGKILL. Removes the pidfile."""
        pid = self.pid()
        if pid is not None:
            _kill_group(pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and _group_alive(pid):
                _reap()
                time.sleep(0.05)
            if _group_alive(pid):
                _kill_group(pid, signal.SIGKILL)
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline and _group_alive(pid):
                    _reap()
                    time.sleep(0.05)
        _reap()
        self.pidfile.unlink(missing_ok=True)


_REAPERS: list[subprocess.Popen[bytes]] = []
_REAPERS_LOCK = threading.Lock()


def _reap() -> None:
    """Collect exit statuses of children we started (so they do not linger as zombies)."""
    with _REAPERS_LOCK:
        for p in list(_REAPERS):
            if p.poll() is not None:
                _REAPERS.remove(p)


def _kill_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) pids whose process group is ``pgid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            out.append(int(entry.name))
    return out


def _group_alive(pgid: int) -> bool:
    _reap()
    return bool(group_members(pgid))


def _ssl_context(ca_file: Path | None) -> ssl.SSLContext:
    """One context per CA file and version of it: a start polls a probe every 0.2 s, and building a context (loading
    the CA) cost more CPU than the probe's request."""
    if ca_file is None:
        return _context_for(None, 0)
    return _context_for(str(ca_file), ca_file.stat().st_mtime_ns)


@functools.lru_cache(maxsize=32)
def _context_for(ca_file: str | None, _version: int) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=ca_file)


def http_get(url: str, ca_file: Path | None = None, token: str | None = None, timeout: float = 3.0) -> tuple[int, str]:
    """GET ``url``; returns (status, body). Raises OSError on connection failure."""
    req = urllib.request.Request(url)  # noqa: S310 - URLs are built by us, http(s) only
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    ctx = _ssl_context(ca_file) if url.startswith("https") else None
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=ctx) as resp:  # noqa: S310
            return resp.status, resp.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


def probe(url: str, ca_file: Path | None = None, token: str | None = None) -> bool:
    try:
        status, _ = http_get(url, ca_file, token)
    except (OSError, ssl.SSLError):
        return False
    return status == 200


def wait_until(
    check: Callable[[], bool],
    timeout: float,
    *,
    proc: Proc | None = None,
    what: str = "",
    interval: float = 0.2,
) -> None:
    """Poll ``check`` until true; fail fast (with the log tail) if ``proc`` dies meanwhile."""
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return
        if proc is not None and not proc.alive():
            raise ComponentError(proc.name, f"exited before becoming ready ({what})", proc.log_file)
        if time.monotonic() > deadline:
            name = proc.name if proc else what
            raise ComponentError(name, f"not ready after {timeout:.0f}s ({what})", proc.log_file if proc else None)
        time.sleep(interval)
