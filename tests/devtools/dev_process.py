"""``manage.py dev`` as a child process for the dev command's tests: its output read on a thread, the sign-in
it prints, and a stop that leaves nothing behind (SIGINT, then the whole process group)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from devtools.waiting import wait_for
from tests.harness.services import free_port

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "PINCONSOLE_PROGRESS", "PINCONSOLE_BIN_DIR"}


STEP_FAILED = re.compile(r"^\[dev\] +\d+/\d+ [^:]+: FAILED after", re.MULTILINE)


class DevProcess:
    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.tmp_path = tmp_path
        self.lines: list[str] = []
        base = {k: v for k, v in os.environ.items() if k not in LEFT_OUT}
        self.env = {
            **base,
            "PINCONSOLE_VAR_DIR": str(tmp_path / "var"),
            "PINCONSOLE_DEV_STATE": str(tmp_path / "state"),
            "PINCONSOLE_BOOTSTRAPPED": "1",
            "DEBUG": "true",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        self.args = [sys.executable, str(ROOT / "manage.py"), "dev", "--port", str(self.port), *args]
        self.proc: subprocess.Popen[str] | None = None

    def __enter__(self) -> DevProcess:
        self.proc = subprocess.Popen(
            self.args,
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for_line(self, pattern: str, timeout: float) -> re.Match[str]:
        """The first line matching ``pattern``; a step that fails meanwhile (the portal serves on, so the process
        does not exit) fails the wait at once unless ``pattern`` is what it waits for."""

        def found() -> re.Match[str] | None:
            assert self.proc is not None
            match = re.search(pattern, self.output, re.MULTILINE)
            if match is None and self.proc.poll() is not None:
                raise AssertionError(f"manage.py dev exited ({self.proc.returncode}):\n{self.output[-4000:]}")
            if match is None and STEP_FAILED.search(self.output):
                raise AssertionError(f"a step failed while waiting for {pattern!r}:\n{self.output[-4000:]}")
            return match

        try:
            return wait_for(found, timeout=timeout, interval=0.2, what=pattern)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self.output[-4000:]}") from None

    def signed_in(self) -> httpx.Client:
        """A client signed in as the demo user with the password the command printed."""
        password = self.wait_for_line(r"sign in as demo / (\S+)", 10).group(1)
        self.wait_for_line(r"Uvicorn running", 60)
        http = httpx.Client(base_url=self.url, follow_redirects=False, timeout=20)
        page = http.get("/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token, page.text[:500]
        answer = http.post(
            "/login/",
            data={"username": "demo", "password": password, "csrfmiddlewaretoken": token.group(1)},
            headers={"Referer": self.url + "/"},
        )
        assert answer.status_code == 302, answer.text[:500]
        return http

    def stop(self, how: signal.Signals = signal.SIGINT) -> str:
        """Stop it as a user would; kill its process group if it does not end. Returns the whole output."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(how)
            try:
                self.proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        return self.output

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # anything of its group still running (a build)

    def leftovers(self) -> str:
        return subprocess.run(["pgrep", "-af", str(self.tmp_path)], capture_output=True, text=True).stdout.strip()
