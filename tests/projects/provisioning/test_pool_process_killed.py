"""A worker's pool process killed mid-provisioning (SIGKILL, the OOM killer) while the worker itself stays up:
the task is handed out again at once (acks_late + reject_on_worker_lost), not acknowledged and lost with the
record left in ``provisioning`` until the reconcile pass. And a cluster that takes connections but never answers
costs one run its deadline, not attempts x read timeout."""

import os
import signal
import subprocess
import time
import uuid

import pytest

from devtools.waiting import wait_for
from projects.models import ClusterProvisioning
from tests.support.provisioning import (
    GRANT,
    _no_queueing,
    hung_member,
    onboard,
    start_worker,
    states,
    stop_worker,
    taken_by_worker,
)

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


def pool_processes(worker: subprocess.Popen) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(worker.pid)], capture_output=True, text=True, check=False)
    return [int(pid) for pid in found.stdout.split()]


def test_a_cluster_that_never_answers_fails_inline_within_the_deadline(
    federation, pools, admin_user, tmp_path, settings
):
    from projects.provisioning import deadline_seconds
    from projects.tasks import provision_on_cluster

    settings.CELERY_TASK_ALWAYS_EAGER = True  # the embedded default: the run is inline in an HTTP request
    hung, forwarder = hung_member(federation, tmp_path)
    try:
        with _no_queueing():
            project = onboard(f"slow-{uuid.uuid4().hex[:6]}", admin_user, grants=GRANT)
        started = time.monotonic()
        state = provision_on_cluster(project.pk, hung.pk)
        took = time.monotonic() - started
    finally:
        forwarder.stop()

    assert state == "failed" and took < deadline_seconds() + 2, took
    record = ClusterProvisioning.objects.get(project=project, cluster=hung)
    assert "did not answer within" in record.last_error or "timed out" in record.last_error.lower()


def test_a_pool_process_killed_mid_provisioning_has_its_task_run_again(federation, pools, admin_user, tmp_path):
    hung, forwarder = hung_member(federation, tmp_path)
    log = tmp_path / "worker.log"
    worker = start_worker(log)  # the default visibility timeout (600 s): only an immediate redelivery helps
    try:
        project = onboard(f"oom-{uuid.uuid4().hex[:6]}", admin_user, grants=GRANT)
        taken_by_worker(project, log)
        for pid in pool_processes(worker):  # the pool processes only: the worker's main process stays up
            os.kill(pid, signal.SIGKILL)
        forwarder.release()

        wait_for(
            lambda: states(project) == {c.name: ("ready", project.generation) for c in [*federation, hung]},
            timeout=90,
            what=f"the task to be handed out again and finish (log: {log})",
        )
        assert worker.poll() is None
        assert "WorkerLostError" in log.read_text()
    finally:
        stop_worker(worker)
        forwarder.stop()
