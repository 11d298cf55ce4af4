"""A dev pod whose program has ended (phase Succeeded or Failed, a job's pod) gets no more log lines from the
supervisor's log pump: its log stops where the program stopped, as a real container's does."""

from __future__ import annotations

from pathlib import Path

from kubernetes import client

from devtools.localcp.pods.watch import Pod, PodWatcher, Registry


def watcher(registry: Registry, tmp_path: Path) -> PodWatcher:
    return PodWatcher(client.ApiClient(), registry, tmp_path, tmp_path, "/logs", lambda _: None, lambda _: None)


def event(name: str, uid: str, phase: str) -> dict:
    return {"metadata": {"namespace": "ns", "name": name, "uid": uid}, "status": {"phase": phase}}


def test_a_finished_pod_leaves_the_pumps_list_and_its_successor_under_the_name_joins_it(tmp_path):
    registry = Registry()
    for name in ("job-1", "web-1"):
        registry.put(Pod("ns", name, f"uid-{name}", tmp_path, tmp_path / f"{name}.log"))
    pods = watcher(registry, tmp_path)

    pods._submit_obj("MODIFIED", event("job-1", "uid-job-1", "Running"))
    running = [p.name for p in registry.running()]
    pods._submit_obj("MODIFIED", event("job-1", "uid-job-1", "Succeeded"))
    pods._submit_obj("MODIFIED", event("web-1", "uid-web-1", "Running"))

    assert running == ["job-1", "web-1"]
    assert [p.name for p in registry.running()] == ["web-1"]
    registry.pop("ns/job-1")
    registry.put(Pod("ns", "job-1", "uid-job-1b", tmp_path, tmp_path / "job-1.log"))  # the job's next pod
    assert sorted(p.name for p in registry.running()) == ["job-1", "web-1"]
