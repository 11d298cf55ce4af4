"""Throwaway PostgreSQL and Redis started from system binaries for one test session."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from devtools.bootstrap import find_postgres_bin
from devtools.localcp.procs import free_port


class ComponentFailed(RuntimeError):
    """A real component could not start: the suite fails, it never silently skips."""


def _wait_port(port: int, timeout: float, proc: subprocess.Popen[bytes], name: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ComponentFailed(f"{name} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise ComponentFailed(f"{name} did not listen on {port} within {timeout}s:\n{log.read_text()[-3000:]}")


def _as_postgres_user() -> dict[str, object]:
    """initdb/postgres refuse to run as root; drop to the 'postgres' (or 'nobody') user."""
    if os.geteuid() != 0:
        return {}
    import pwd

    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
            return {"user": entry.pw_uid, "group": entry.pw_gid}
        except KeyError:
            continue
    raise ComponentFailed("running as root and no 'postgres' or 'nobody' user to run PostgreSQL as")


@dataclass
class Postgres:
    port: int = field(default_factory=free_port)
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="pinconsole-pg-")))
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"postgres://pinconsole@127.0.0.1:{self.port}/pinconsole"

    def start(self) -> None:
        bindir = find_postgres_bin()
        if bindir is None:
            raise ComponentFailed("PostgreSQL binaries not found (apt-get install postgresql)")
        data, log = self.root / "data", self.root / "postgres.log"
        creds = _as_postgres_user()
        os.chmod(self.root, 0o777)
        subprocess.run(
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "pinconsole",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            **creds,
        )  # type: ignore[arg-type]
        self.proc = subprocess.Popen(
            [
                str(bindir / "postgres"),
                "-D",
                str(data),
                "-p",
                str(self.port),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                f"unix_socket_directories={self.root}",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=200",
            ],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
            **creds,  # type: ignore[arg-type]
        )
        _wait_port(self.port, 30, self.proc, "postgres", log)
        deadline = time.monotonic() + 20
        while True:
            done = subprocess.run(
                [str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "pinconsole", "pinconsole"],
                capture_output=True,
            )
            if done.returncode == 0 or b"already exists" in done.stderr:
                return
            if time.monotonic() > deadline:
                raise ComponentFailed(f"createdb failed: {done.stderr.decode()}")
            time.sleep(0.2)

    def stop(self) -> None:
        _terminate(self.proc)
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Redis:
    port: int = field(default_factory=free_port)
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="pinconsole-redis-")))
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise ComponentFailed("redis-server not found (apt-get install redis-server)")
        log = self.root / "redis.log"
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.root),
            ],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        _wait_port(self.port, 15, self.proc, "redis-server", log)

    def stop(self) -> None:
        _terminate(self.proc)
        shutil.rmtree(self.root, ignore_errors=True)


def _terminate(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
