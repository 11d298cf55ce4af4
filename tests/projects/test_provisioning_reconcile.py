"""Which (project, cluster) pairs the periodic reconcile pass runs: missing, behind, failed (with backoff),
killed half-way, being removed, or not checked for longer than the resync age (drift repair)."""

from datetime import UTC, datetime, timedelta

import pytest

from projects.tasks import BACKOFF_CAP, _Seen, is_due, resync_after, stuck_after

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def seen(state="ready", observed=3, attempts=0, attempted=timedelta(minutes=1), succeeded=timedelta(minutes=1)):
    return _Seen(state, observed, attempts, NOW - attempted, NOW - succeeded)


@pytest.mark.parametrize(
    ("record", "active", "due"),
    [
        (None, True, True),  # a new project, or a newly registered cluster
        (None, False, False),  # archived and never provisioned there: nothing to remove
        (seen(), True, False),  # up to date and recently checked
        (seen(observed=2), True, True),  # behind the project's generation
        (seen(succeeded=resync_after()), True, True),  # drift repair
        (seen(state="pending"), True, True),
        (seen(state="provisioning", observed=2, attempts=1), True, False),  # running right now
        (seen(state="provisioning", observed=2, attempts=1, attempted=stuck_after()), True, True),  # killed
        (seen(state="failed", attempts=1, attempted=timedelta(seconds=10)), True, False),  # backing off
        (seen(state="failed", attempts=1, attempted=timedelta(seconds=30)), True, True),
        (seen(state="failed", attempts=3, attempted=timedelta(seconds=90)), True, False),  # 2 min after 3 failures
        (seen(state="failed", attempts=30, attempted=BACKOFF_CAP), True, True),  # capped
        (seen(), False, True),  # archived: remove it
        (seen(state="removing"), False, True),  # look again whether the namespace is gone
        (seen(state="removed"), False, False),
        (seen(state="removed", observed=2), True, True),  # archived, then restored
    ],
)
def test_is_due(record, active, due):
    assert is_due(record, generation=3, active=active, now=NOW) is due


def test_a_forced_pass_runs_every_active_pair_and_every_unfinished_removal():
    assert is_due(seen(), generation=3, active=True, now=NOW, force=True)
    assert is_due(seen(state="removing"), generation=3, active=False, now=NOW, force=True)
    assert not is_due(seen(state="removed"), generation=3, active=False, now=NOW, force=True)
    assert not is_due(None, generation=3, active=False, now=NOW, force=True)


@pytest.mark.django_db
def test_a_cluster_whose_credentials_cannot_be_loaded_is_a_recorded_failure_not_a_crash(user):
    """The embedded default runs tasks inline after the commit: a bad kubeconfig must not turn a saved
    change into a 500; the cluster's record says what is wrong."""
    from clusters.models import Cluster
    from projects.models import ClusterProvisioning, Project, ProvisioningState
    from projects.tasks import provision_on_cluster

    cluster = Cluster.objects.create(
        name="member-gone",
        region="r",
        zone="r-a",
        role="member",
        api_server="https://127.0.0.1:1",
        kubeconfig_path="/nonexistent/kubeconfig",
        kube_context="nope",
    )
    project = Project.objects.create(name="ads", team="ads", cost_center="CC-1")

    provision_on_cluster(project.pk, cluster.pk)

    record = ClusterProvisioning.objects.get(project=project, cluster=cluster)
    assert record.state == ProvisioningState.FAILED
    assert "credentials" in record.last_error or "kubeconfig" in record.last_error


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text",
    [
        "clusters: [{name: x\n",  # cut short while written: not YAML
        "- a list\n- not a mapping\n",
    ],
    ids=["truncated-yaml", "not-a-mapping"],
)
def test_a_malformed_kubeconfig_is_a_recorded_failure_not_a_crash(tmp_path, text):
    from clusters.models import Cluster
    from projects.models import ClusterProvisioning, Project, ProvisioningState
    from projects.tasks import provision_on_cluster

    path = tmp_path / "kubeconfig"
    path.write_text(text)
    cluster = Cluster.objects.create(
        name="member-bad",
        region="r",
        zone="r-a",
        role="member",
        api_server="https://127.0.0.1:1",
        kubeconfig_path=str(path),
        kube_context="c",
    )
    project = Project.objects.create(name="ads", team="ads", cost_center="CC-1")

    assert provision_on_cluster(project.pk, cluster.pk) == ProvisioningState.FAILED

    record = ClusterProvisioning.objects.get(project=project, cluster=cluster)
    assert record.state == ProvisioningState.FAILED
    assert "credentials cannot be loaded" in record.last_error and str(path) in record.last_error
