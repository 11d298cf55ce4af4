"""Step-by-step progress for the dev and test commands: what runs now, how long it took, what remains.

Standard library only: the bootstrap uses it before any dependency exists. Long commands write their
output to a log file instead of the terminal; the tail of that log is printed only when the step fails.

On a terminal the current step is one line that updates every second. In a pipe (CI, the dev command's
test) a step prints a line when it starts (only if it takes longer than a couple of seconds), a
"still running" line every minute, and a line when it ends. The plan (numbering, elapsed time, the
steps done, what remains) survives the bootstrap's re-exec into the venv through one environment variable.

With a ``status_file`` the same events are also written there as JSON (``status()``), rewritten at each
change: the dev command's progress page in the portal (devtools/startup) reads it, so the page and the
terminal tell one story from one source.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

ENV = "PINCONSOLE_PROGRESS"
TAIL_LINES = 40
STARTING, LIVE, FAILED, STOPPED = "starting", "live", "failed", "stopped"  # status()["state"]


BINARIES = "control-plane binaries"


def dev_steps(*, clusters: bool = True) -> list[str]:
    """The dev stack's steps after the bootstrap (the bootstrap announces them as what remains): the portal
    answers first; the binaries it lacks are built and the clusters come up behind it."""
    if not clusters:
        return ["database", "portal"]
    return [
        "database",
        "portal",
        BINARIES,
        "clusters up",
        "register clusters",
        "CRDs and PriorityClasses",
        "demo data",
        "operator",
        "history recorder",
        "watch caches",
    ]


def fmt_seconds(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s"


NOISE = (
    "go: downloading ",
    "go: finding ",
    "go: extracting ",
    "go: added ",
    "go: upgraded ",
)  # kept in the log, left out of the tail


def log_tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` lines of a log that say something (not Go's module download chatter)."""
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 65536))
            data = fh.read().decode(errors="replace")
    except OSError:
        return ""
    return "\n".join([line for line in data.splitlines() if not line.startswith(NOISE)][-lines:])


def short_path(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if home != "/" and text.startswith(home + "/") else text


class StepFailed(RuntimeError):
    """A step's command failed; the progress line already showed the log tail."""


def read_status(path: Path) -> dict[str, Any] | None:
    """The status a ``Progress`` wrote to ``path`` (None when there is none, or it is being replaced)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class Step:
    """What the body of ``Progress.step`` may set: a short outcome, the log to show on failure and the
    command that runs the step again on its own (``retry``; the progress's own command when None)."""

    def __init__(self, title: str, number: int, total: int, log: Path | None) -> None:
        self.title, self.number, self.total, self.log = title, number, total, log
        self.outcome = "done"
        self.retry: str | None = None
        self.started = time.monotonic()
        self.started_at = time.time()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def record(self, state: str, **extra: Any) -> dict[str, Any]:
        """The step as the status file shows it."""
        return {
            "title": self.title,
            "state": state,
            "outcome": self.outcome if state == "done" else "",
            "started": self.started_at,
            "seconds": round(self.elapsed, 1),
            "log": str(self.log) if self.log else None,
            **extra,
        }


class Progress:
    def __init__(
        self,
        label: str,
        plan: list[str],
        *,
        stream: TextIO | None = None,
        live: bool | None = None,
        announce_after: float = 2.0,
        heartbeat: float = 60.0,
        status_file: Path | None = None,
        retry: str = "",
    ) -> None:
        self.label = label
        self.status_file, self.retry = status_file, retry
        self.state = STARTING
        self.finished: list[dict[str, Any]] = []  # each step done or failed, the bootstrap's included
        self.clusters: list[dict[str, Any]] = []
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self.announce_after, self.heartbeat = announce_after, heartbeat
        self.t0 = time.time()
        self.done = 0
        self.todo = list(plan)
        self._lock = threading.Lock()
        self._current: Step | None = None
        self._wake = threading.Event()

    # -- plan ---------------------------------------------------------------------------------------
    @classmethod
    def resume(
        cls,
        label: str,
        plan: list[str],
        *,
        stream: TextIO | None = None,
        live: bool | None = None,
        status_file: Path | None = None,
        retry: str = "",
    ) -> Progress:
        """Continue the numbering, the clock and the list of steps done of the process that exec'd this one."""
        progress = cls(label, plan, stream=stream, live=live, status_file=status_file, retry=retry)
        try:
            state = json.loads(os.environ.get(ENV, ""))
            progress.t0, progress.done = float(state["t0"]), int(state["done"])
            progress.finished = list(state.get("steps", []))
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
        progress.write_status()
        return progress

    def export(self) -> dict[str, str]:
        """Environment for the next process (see ``resume``)."""
        return {ENV: json.dumps({"t0": self.t0, "done": self.done, "steps": self.finished})}

    def replace(self, title: str, titles: list[str]) -> None:
        """Expand a planned step into the steps found out while running (e.g. which binaries are missing)."""
        new = [t for t in titles if t not in self.todo]
        with self._lock:
            if title in self.todo:
                at = self.todo.index(title)
                self.todo[at : at + 1] = new
            else:
                self.todo[:0] = new
        self.write_status()

    @property
    def total(self) -> int:
        return self.done + len(self.todo)

    def elapsed(self) -> float:
        return time.time() - self.t0

    def remaining(self, limit: int = 6) -> str:
        rest = self.todo
        if not rest:
            return ""
        shown = ", ".join(rest[:limit])
        return shown + (f" (+{len(rest) - limit} more)" if len(rest) > limit else "")

    # -- status file --------------------------------------------------------------------------------
    def cluster_ready(self, name: str, role: str, zone: str, server: str) -> None:
        """A cluster answers (the page lists the clusters as each comes up)."""
        with self._lock:
            self.clusters = [c for c in self.clusters if c["name"] != name]
            self.clusters.append(
                {"name": name, "role": role, "zone": zone, "server": server, "seconds": round(self.elapsed(), 1)}
            )
        self.write_status()

    def finish(self, state: str) -> None:
        """The whole run's state: LIVE once everything is up, STOPPED when the command ends."""
        with self._lock:
            if not (self.state == FAILED and state == LIVE):
                self.state = state
        self.write_status()

    def status(self) -> dict[str, Any]:
        """Everything the progress page shows; times are epoch seconds so a reader can count on from them."""
        with self._lock:
            steps = list(self.finished)
            if self._current is not None:
                steps.append(self._current.record("running"))
            steps += [{"title": title, "state": "pending"} for title in self.todo]
            return {
                "label": self.label,
                "state": self.state,
                "started": self.t0,
                "updated": time.time(),
                "steps": steps,
                "clusters": list(self.clusters),
                "retry": self.retry,
            }

    def write_status(self) -> None:
        if self.status_file is None:
            return
        data = json.dumps(self.status(), indent=1)
        tmp = self.status_file.with_name(f".{self.status_file.name}.{os.getpid()}.{threading.get_ident()}")
        self.status_file.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(data)
        tmp.replace(self.status_file)

    # -- output -------------------------------------------------------------------------------------
    def say(self, message: str) -> None:
        with self._lock:
            self._clear_live()
            self._write(f"[{self.label}] {message}\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def _clear_live(self) -> None:
        if self.live and self._current is not None:
            self._write("\r\033[2K")

    def _prefix(self, step: Step) -> str:
        width = len(str(step.total))
        return f"[{self.label}] {step.number:>{width}}/{step.total} {step.title}"

    def _status_line(self, step: Step, note: str) -> str:
        return f"{self._prefix(step)}: {note}"

    @contextmanager
    def step(self, title: str, *, log: Path | None = None) -> Iterator[Step]:
        if title in self.todo:
            self.todo.remove(title)
        self.done += 1
        step = Step(title, self.done, self.total, log)
        with self._lock:
            self._current = step
        self.write_status()
        ticker = threading.Thread(target=self._tick, args=(step,), daemon=True)
        self._wake.clear()
        ticker.start()
        try:
            yield step
        except BaseException as exc:
            self._stop_ticker(ticker)
            self._finish_failed(step, exc)
            raise
        self._stop_ticker(ticker)
        with self._lock:
            self._clear_live()
            self._current = None
            self.finished.append(step.record("done"))
            self._write(
                self._status_line(
                    step, f"{step.outcome} ({fmt_seconds(step.elapsed)}, total {fmt_seconds(self.elapsed())})"
                )
                + "\n"
            )
        self.write_status()

    def _stop_ticker(self, ticker: threading.Thread) -> None:
        self._wake.set()
        ticker.join()

    def _finish_failed(self, step: Step, exc: BaseException) -> None:
        with self._lock:
            self._clear_live()
            self._current = None
            if isinstance(exc, KeyboardInterrupt):
                self.finished.append(step.record("interrupted"))
                self._write(self._status_line(step, f"interrupted after {fmt_seconds(step.elapsed)}") + "\n")
            else:
                reason = str(exc) if not isinstance(exc, SystemExit) else ""
                tail = log_tail(step.log) if step.log is not None else ""
                self.state = FAILED
                self.finished.append(step.record("failed", error=reason, tail=tail, retry=step.retry or self.retry))
                note = f" ({reason})" if reason else ""
                self._write(self._status_line(step, f"FAILED after {fmt_seconds(step.elapsed)}{note}") + "\n")
                if step.log is not None:
                    self._write(f"---- end of {step.log} ----\n{tail}\n----\n")
                if step.retry:
                    self._write(f"[{self.label}] retry: {step.retry}\n")
        self.write_status()

    def _start_note(self, step: Step) -> str:
        note = "running"
        if step.log is not None:
            note += f" (log: {short_path(step.log)})"
        rest = self.remaining()
        return note + (f"; then {rest}" if rest else "")

    def _tick(self, step: Step) -> None:
        """Live line on a terminal; otherwise a start line for slow steps and a heartbeat."""
        if self.live:
            while not self._wake.wait(1.0):
                with self._lock:
                    if self._current is step:
                        line = self._status_line(step, f"{fmt_seconds(step.elapsed)} ...")
                        rest = self.remaining(3)
                        self._write("\r\033[2K" + line + (f"   (next: {rest})" if rest else ""))
            return
        if self._wake.wait(self.announce_after):
            return
        with self._lock:
            self._write(self._status_line(step, self._start_note(step)) + "\n")
        while not self._wake.wait(self.heartbeat):
            with self._lock:
                self._write(
                    self._status_line(
                        step, f"still running ({fmt_seconds(step.elapsed)}, total {fmt_seconds(self.elapsed())})"
                    )
                    + "\n"
                )
