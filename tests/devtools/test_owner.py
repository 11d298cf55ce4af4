"""A test session's control plane is stopped by the next session when the one that started it was killed."""

import subprocess
import sys
import time
from pathlib import Path

from devtools.localcp.layout import ClusterInfo, Layout, write_layout
from devtools.localcp.owner import claim, owner_gone, reap_abandoned
from devtools.localcp.procs import Proc


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def state_dir_running_a_component(root: Path, name: str) -> tuple[Path, Proc]:
    """A state dir laid out like a control plane's, whose one 'etcd' is a detached sleeping process."""
    state = root / name
    cluster_dir = state / "host"
    proc = Proc("etcd", cluster_dir / "run", cluster_dir / "logs")
    proc.start(["sleep", "600"])
    cluster = ClusterInfo(
        name="host",
        role="host",
        region="r",
        zone="ra",
        context="host",
        server="",
        components=["etcd"],
        dir=str(cluster_dir),
    )
    write_layout(
        state, Layout(state_dir=str(state), kubeconfig="", ca_file="", bin_dir="", region="r", clusters=[cluster])
    )
    return state, proc


def test_a_claim_by_a_live_process_holds_and_one_by_a_dead_process_is_gone(tmp_path):
    mine, theirs, nobody = tmp_path / "mine", tmp_path / "theirs", tmp_path / "nobody"
    nobody.mkdir()

    claim(mine)
    claim(theirs, pid=dead_pid())

    assert not owner_gone(mine)
    assert owner_gone(theirs)
    assert not owner_gone(nobody)  # unclaimed: a dev or bench control plane, never reaped


def test_reaping_stops_only_control_planes_whose_owner_died(tmp_path):
    abandoned, abandoned_proc = state_dir_running_a_component(tmp_path / "pytest-1", "localcp0")
    owned, owned_proc = state_dir_running_a_component(tmp_path / "pytest-2", "localcp0")
    _unclaimed, unclaimed_proc = state_dir_running_a_component(tmp_path / "pytest-3", "localcp0")
    claim(abandoned, pid=dead_pid())
    claim(owned)
    try:
        reaped = reap_abandoned(tmp_path)

        assert reaped == [abandoned]
        deadline = time.monotonic() + 5
        while abandoned_proc.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not abandoned_proc.alive()
        assert owned_proc.alive()
        assert unclaimed_proc.alive()
        assert reap_abandoned(tmp_path) == []  # the claim went with the control plane
    finally:
        for proc in (abandoned_proc, owned_proc, unclaimed_proc):
            proc.stop()
