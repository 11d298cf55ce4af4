"""Provisioning survives being killed half-way (the next run converges, nothing is duplicated), and runs
on a real Celery worker over the harness's Redis, queued on commit by ``project_changed``."""

import os
import signal
import time
import uuid

import pytest

from devtools.waiting import wait_for
from projects.models import ClusterProvisioning
from projects.tasks import provision_on_cluster
from tests.support.provisioning import (
    GRANT,
    _no_queueing,
    hung_member,
    managed,
    onboard,
    run_python,
    start_worker,
    states,
    stop_worker,
    subprocess_env,
    taken_by_worker,
)

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]

# Runs provision_on_cluster in a fresh process and SIGKILLs it right after the Nth server-side apply.
KILLED_AFTER_N_APPLIES = """
import os, signal, sys
import django
django.setup()
from clusters import provision
from projects.tasks import provision_on_cluster

applied = 0
real_apply = provision.apply

def apply_then_maybe_die(*args, **kwargs):
    global applied
    result = real_apply(*args, **kwargs)
    applied += 1
    if applied == int(os.environ["KILL_AFTER"]):
        os.kill(os.getpid(), signal.SIGKILL)
    return result

provision.apply = apply_then_maybe_die
provision_on_cluster(int(sys.argv[1]), int(sys.argv[2]))
"""


def test_a_task_killed_half_way_converges_when_run_again_without_duplicates(
    federation, pools, cluster_api_clients, admin_user, user
):
    member = next(c for c in federation if c.role == "member")
    api = cluster_api_clients[member.name]
    with _no_queueing():
        project = onboard(
            f"crash-{uuid.uuid4().hex[:6]}", admin_user, members=[("user", user.username, "owner")], grants=GRANT
        )

    killed = run_python(KILLED_AFTER_N_APPLIES, str(project.pk), str(member.pk), env=subprocess_env(KILL_AFTER="6"))

    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    record = ClusterProvisioning.objects.get(project=project, cluster=member)
    assert (record.state, record.observed_generation, record.attempts) == ("provisioning", 0, 1)
    # the namespace, the three project ClusterRoles (re-applied by every run) and two RoleBindings made it
    assert managed(api, project.namespace) == {
        "RoleBinding": ["pincompute-project-developer", "pincompute-project-owner"],
        "ResourceQuota": [],
        "LimitRange": [],
    }

    assert provision_on_cluster(project.pk, member.pk) == "ready"

    record.refresh_from_db()
    assert (record.state, record.observed_generation, record.attempts) == ("ready", project.generation, 0)
    assert ClusterProvisioning.objects.filter(project=project, cluster=member).count() == 1
    assert managed(api, project.namespace) == {
        "RoleBinding": ["pincompute-project-developer", "pincompute-project-owner", "pincompute-project-viewer"],
        "ResourceQuota": ["pincompute-ondemand", "pincompute-preemptible", "pincompute-reserved"],
        "LimitRange": ["pincompute-defaults"],
    }


@pytest.fixture
def celery_worker(tmp_path):
    proc = start_worker(tmp_path / "worker.log")
    yield proc
    stop_worker(proc)


def test_onboarding_is_provisioned_by_a_real_celery_worker_over_redis(
    federation, pools, cluster_api_clients, celery_worker, admin_user, user, tmp_path
):
    project = onboard(
        f"worker-{uuid.uuid4().hex[:6]}", admin_user, members=[("user", user.username, "owner")], grants=GRANT
    )

    wait_for(
        lambda: states(project) == {c.name: ("ready", project.generation) for c in federation},
        timeout=60,
        what=f"the worker to provision every cluster (log: {tmp_path / 'worker.log'})",
    )

    assert celery_worker.poll() is None
    for cluster in federation:
        if cluster.role == "member":
            assert managed(cluster_api_clients[cluster.name], project.namespace)["ResourceQuota"] == [
                "pincompute-ondemand",
                "pincompute-preemptible",
                "pincompute-reserved",
            ]


def test_a_worker_killed_mid_provisioning_leaves_the_task_to_the_next_worker(
    federation, pools, cluster_api_clients, admin_user, tmp_path
):
    """SIGKILL the worker while it provisions a member whose apiserver hangs: the task was never acknowledged
    (acks_late), so the next worker gets it back from the broker after the visibility timeout and converges."""
    member = next(c for c in federation if c.role == "member")  # member-hung's apiserver, reached directly
    hung, forwarder = hung_member(federation, tmp_path)
    log = tmp_path / "worker.log"
    first = start_worker(log, CELERY_VISIBILITY_TIMEOUT="3")
    second = None
    try:
        project = onboard(f"killed-{uuid.uuid4().hex[:6]}", admin_user, grants=GRANT)
        taken_by_worker(project, log)
        os.killpg(first.pid, signal.SIGKILL)  # the whole worker, pool children included
        first.wait(timeout=10)
        forwarder.release()
        assert states(project)["member-hung"][0] == "provisioning"  # nobody finished it
        time.sleep(4)  # past the visibility timeout: the next worker restores what was taken when it starts polling

        second = start_worker(log, CELERY_VISIBILITY_TIMEOUT="3")
        wait_for(
            lambda: states(project) == {c.name: ("ready", project.generation) for c in [*federation, hung]},
            timeout=90,
            what=f"the next worker to finish every cluster (log: {log})",
        )

        record = ClusterProvisioning.objects.get(project=project, cluster=hung)
        assert record.attempts == 0 and record.last_error == ""
        assert managed(cluster_api_clients[member.name], project.namespace)["ResourceQuota"] == [
            "pincompute-ondemand",
            "pincompute-preemptible",
            "pincompute-reserved",
        ]
    finally:
        if second is not None:
            stop_worker(second)
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
        forwarder.stop()
