"""Metrics across processes, as deployed: ``uvicorn --workers 2`` sharing ``PROMETHEUS_MULTIPROC_DIR`` (a scrape
answered by either worker counts the requests both served), and a real Celery worker over the harness's Redis
serving its own /metrics on ``WORKER_METRICS_ADDRESS`` (a task it ran, counted by name and outcome)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from devtools.localcp.procs import free_port
from devtools.waiting import wait_for
from projects.tasks import provision_project_everywhere
from tests.support.metrics import families, value
from tests.support.provisioning import start_worker, stop_worker

pytestmark = [pytest.mark.integration]
TOKEN = "scrape-token-processes-0123456789"
TASK = "projects.provision_project_everywhere"


def get(url: str, token: str = "") -> str:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


def pids_of(directory: Path) -> set[str]:
    """The processes that wrote counters there (files ``counter_<pid>.db``)."""
    return {p.stem.rpartition("_")[2] for p in directory.glob("counter_*.db")}


@pytest.fixture
def two_workers(tmp_path):
    shared = tmp_path / "prometheus"
    shared.mkdir()
    port = free_port()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared), "METRICS_TOKEN": TOKEN}
    command = [sys.executable, "-m", "uvicorn", "console.asgi:application", "--workers", "2"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--lifespan", "off"]
    proc = subprocess.Popen(command, env=env)
    try:
        yield f"http://127.0.0.1:{port}", shared
    finally:
        proc.terminate()
        proc.wait(20)


def test_either_worker_reports_the_requests_both_served(two_workers):
    base, shared = two_workers
    served = 0

    def healthz(_: int) -> bool:
        try:
            return '"ok"' in get(f"{base}/healthz")
        except OSError:
            return False

    deadline = time.monotonic() + 90
    with ThreadPoolExecutor(8) as pool:
        while len(pids_of(shared)) < 2:  # until both workers have answered some
            assert time.monotonic() < deadline, f"both workers did not answer (pids {pids_of(shared)})"
            served += sum(pool.map(healthz, range(16)))

    scrapes = [families(get(f"{base}/metrics", TOKEN)) for _ in range(6)]

    name = "pinconsole_http_requests_total"
    assert {value(s, name, view="healthz", method="GET", status="2xx") for s in scrapes} == {served}
    assert [value(s, name, view="metrics", method="GET", status="2xx") for s in scrapes] == [0, 1, 2, 3, 4, 5]
    assert scrapes[0]["pinconsole_http_requests"].type == "counter"
    with pytest.raises(urllib.error.HTTPError) as anonymous:
        get(f"{base}/metrics")
    assert anonymous.value.code == 404


@pytest.mark.django_db(transaction=True)
def test_a_celery_worker_serves_the_outcomes_of_the_tasks_it_ran(tmp_path):
    shared = tmp_path / "prometheus"
    shared.mkdir()
    address = f"127.0.0.1:{free_port()}"
    worker = start_worker(tmp_path / "worker.log", PROMETHEUS_MULTIPROC_DIR=str(shared), WORKER_METRICS_ADDRESS=address)
    try:
        wait_for(lambda: _scrape_or_none(address) is not None, 90, what=f"worker metrics ({tmp_path / 'worker.log'})")

        provision_project_everywhere.delay(0)  # through Redis to the worker: no such project, returns []

        runs = "pinconsole_celery_tasks_total"
        found = wait_for(
            lambda: (f := _scrape_or_none(address)) and value(f, runs, task=TASK, outcome="success") == 1 and f,
            60,
            what=f"the worker's count of {TASK} ({tmp_path / 'worker.log'})",
        )
        assert value(found, "pinconsole_celery_task_duration_seconds_count", task=TASK) == 1
        assert found["pinconsole_celery_task_duration_seconds"].type == "histogram"
    finally:
        stop_worker(worker)


def _scrape_or_none(address: str) -> dict | None:
    try:
        return families(get(f"http://{address}/metrics"))
    except OSError:
        return None
