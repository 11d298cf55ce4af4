"""A component that cannot start fails loudly (with its log tail) and leaves no process behind."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from devtools.localcp import ComponentError, LocalControlPlane
from devtools.localcp.binaries import default_bin_dir
from devtools.localcp.procs import Proc, group_members

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_broken_component_fails_with_log_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = default_bin_dir()
    fake = tmp_path / "bin"
    fake.mkdir()
    for binary in real.iterdir():
        (fake / binary.name).symlink_to(binary)
    # kwok runs in a jail holding no shell (devtools/localcp/pods/jail.py): a static binary that refuses
    # kwok's flags stands in for a kwok that cannot start.
    (fake / "kwok").unlink()
    (fake / "kwok").symlink_to(real / "kubectl")
    monkeypatch.setenv("PINCONSOLE_BIN_DIR", str(fake))

    cp = LocalControlPlane(tmp_path / "state", members=1, nodes_per_member=1, build_missing=False)
    with pytest.raises(ComponentError) as err:
        cp.up(timeout=120)
    assert err.value.component == "kwok"
    assert "unknown flag" in str(err.value)
    assert cp.leftover_pids() == []


def test_stop_kills_whole_group_even_if_sigterm_is_ignored(tmp_path: Path) -> None:
    proc = Proc("stubborn", tmp_path / "run", tmp_path / "logs")
    pid = proc.start(["sh", "-c", "trap '' TERM; sleep 300 & sleep 300 & wait"])
    deadline = time.monotonic() + 5
    while len(group_members(pid)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(group_members(pid)) == 3
    started = time.monotonic()
    proc.stop(timeout=1.0)
    assert group_members(pid) == []
    assert time.monotonic() - started < 5
    assert not proc.pidfile.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
