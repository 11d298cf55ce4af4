"""A control plane owned by one process (a test session) outlives it only by accident: reap it next time.

Components are detached on purpose (``procs.Proc``: their own session, so ``dev --keep-clusters`` and a reused
``PINCONSOLE_TEST_STATE_DIR`` survive their parent). A test session that is killed (SIGKILL, a timeout, Ctrl-C
twice) never runs its ``down()``, and its three apiservers, etcds, controller-managers, kwok and pod supervisors
keep running and keep using the CPU that the next runs and benchmarks measure with. A session therefore claims the
control plane it starts (``owner``: its pid and start time) and, before starting its own, stops every claimed one
under the same temp root whose owner is gone. A control plane nobody claimed (dev, a bench, a reused state dir) is
never touched.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from .controlplane import LocalControlPlane
from .procs import start_ticks

OWNER_FILE = "owner"


def claim(state_dir: Path, pid: int | None = None) -> None:
    """Record ``pid`` (default: this process) as the owner of the control plane in ``state_dir``."""
    pid = os.getpid() if pid is None else pid
    state_dir.mkdir(parents=True, exist_ok=True)
    (state_dir / OWNER_FILE).write_text(f"{pid} {start_ticks(pid)}\n")


def owner_gone(state_dir: Path) -> bool:
    """True when ``state_dir`` was claimed and its owner is no longer the process that claimed it."""
    try:
        pid_s, ticks = (state_dir / OWNER_FILE).read_text().split()
        pid = int(pid_s)
    except (OSError, ValueError):
        return False  # unclaimed (or unreadable): not ours to stop
    return start_ticks(pid) != ticks


def reap_abandoned(root: Path, pattern: str = "pytest-*/localcp*") -> list[Path]:
    """Stop the claimed control planes under ``root`` whose owner died; returns their state dirs."""
    reaped = []
    for state_dir in sorted(root.glob(pattern)):
        if state_dir.is_dir() and owner_gone(state_dir):
            LocalControlPlane(state_dir, build_missing=False).down()
            with contextlib.suppress(OSError):
                (state_dir / OWNER_FILE).unlink()
            reaped.append(state_dir)
    return reaped
