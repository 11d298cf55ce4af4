"""up / status / reuse / down of a separate, small control plane, through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

REPO = Path(__file__).resolve().parents[3]


def cli(state_dir: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "devtools.localcp",
            *args,
            "--state-dir",
            str(state_dir),
            "--members",
            "1",
            "--nodes",
            "2",
        ],
        cwd=REPO,
        text=True,
        capture_output=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def our_processes(state_dir: Path) -> list[str]:
    out = subprocess.run(["pgrep", "-af", str(state_dir)], text=True, capture_output=True).stdout
    return [line for line in out.splitlines() if "pgrep" not in line]


def test_up_status_reuse_down(tmp_path: Path) -> None:
    state = tmp_path / "cp"
    try:
        up = cli(state, "up", "--json")
        assert up.returncode == 0, up.stderr
        started = json.loads(up.stdout)
        assert [c["name"] for c in started["clusters"]] == ["host", "member-a"]

        st = cli(state, "status", "--json")
        assert st.returncode == 0, st.stdout + st.stderr
        status = json.loads(st.stdout)
        assert status["healthy"]
        assert set(status["clusters"]["member-a"]["components"]) == {
            "etcd",
            "kube-apiserver",
            "kube-controller-manager",
            "kube-scheduler",
            "kwok",
            "pods",
        }
        # the admission policies' type-checking controller is off (the suite's cost; the apiserver still enforces them)
        managers = [line for line in our_processes(state) if "kube-controller-manager" in line]
        assert len(managers) == 2, managers
        off = "--controllers=*,-validatingadmissionpolicy-status-controller"
        assert all(off in line for line in managers), managers

        again = cli(state, "up", "--json")
        assert again.returncode == 0, again.stderr
        assert "reused" in json.loads(again.stdout)["timings"]
        assert [c["server"] for c in json.loads(again.stdout)["clusters"]] == [c["server"] for c in started["clusters"]]
    finally:
        down = cli(state, "down")
    assert down.returncode == 0, down.stderr
    assert our_processes(state) == []
    st = cli(state, "status")
    assert st.returncode != 0
