"""The control-plane binaries the dev command's clusters run, built behind the portal.

``build_binaries.sh missing dev`` names the ones not built yet, in the order they are built (kubectl, dex and
helm are the tests' only); each is one progress step with its own log, and the command that runs it again on
its own. A build is a process group of its own, so stopping the dev command stops the Go compilers too.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path

from devtools.bootstrap import BUILD_SCRIPT, fresh_log
from devtools.progress import BINARIES, Progress, StepFailed, short_path

ROOT = BUILD_SCRIPT.parents[2]


def _script(*args: str) -> list[str]:
    out = subprocess.run(["bash", str(BUILD_SCRIPT), *args], check=True, stdout=subprocess.PIPE, text=True)
    return out.stdout.split()


def retry_command(name: str) -> str:
    return f"bash {BUILD_SCRIPT.relative_to(ROOT)} {name}"


class DevBuilds:
    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    def run(self) -> Path:
        """Build what is missing, one step each; returns the bin dir."""
        bin_dir = Path(_script("bindir")[-1])
        missing = _script("missing", "dev")
        if not missing:
            with self.progress.step(BINARIES) as step:
                step.outcome = f"cached in {short_path(bin_dir)}"
            return bin_dir
        titles = [f"build {name}" for name in missing]
        self.progress.replace(BINARIES, titles)
        self.progress.say(
            f"building {len(missing)} control-plane binaries from pinned Go modules while the portal answers: once, "
            f"then cached in {short_path(bin_dir.parent.parent)}"
        )
        for name, title in zip(missing, titles, strict=True):
            with self.progress.step(title, log=fresh_log(f"build-{name}")) as step:
                step.retry = retry_command(name)
                self._build(name, step.log)  # type: ignore[arg-type]
                step.outcome = "built"
        return bin_dir

    def _build(self, name: str, log: Path) -> None:
        with log.open("a") as out, self._lock:
            if self._stopped.is_set():
                raise KeyboardInterrupt
            out.write(f"$ {retry_command(name)}\n")
            out.flush()
            self._proc = subprocess.Popen(
                ["bash", str(BUILD_SCRIPT), name],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        code = self._proc.wait()
        if self._stopped.is_set():
            raise KeyboardInterrupt
        if code != 0:
            raise StepFailed(f"build_binaries.sh {name} exited with {code}")

    def stop(self) -> None:
        """Stop the build under way (its whole process group) and start no other."""
        with self._lock:
            self._stopped.set()
            proc = self._proc
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
