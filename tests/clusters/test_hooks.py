"""The one allowed inversion (``clusters.hooks``): the projects app wires the cluster registry at start-up, and a
registry left unwired refuses to judge capacity instead of judging it against no grants at all."""

import pytest

from clusters import hooks, services
from clusters.models import FederationRole
from pincompute.tiers import Tier
from projects import tasks
from projects.grants import tier_grant_totals
from tests.support.factories import make_cluster, make_pool, make_quota

pytestmark = pytest.mark.django_db


def test_the_projects_app_hands_the_registry_its_grant_totals():
    assert hooks.project_hooks().grant_totals is tier_grant_totals


def test_the_regions_grants_reach_the_registry_through_the_hook():
    make_quota("reserved", 50)

    assert hooks.grant_totals() == tier_grant_totals()
    assert hooks.grant_totals()[Tier.RESERVED].cpu_milli == 50_000


def test_a_new_cluster_queues_provisioning_of_every_project(monkeypatch, django_capture_on_commit_callbacks):
    queued = []
    monkeypatch.setattr(tasks.provision_new_cluster, "apply_async", lambda args, **_: queued.append(args))

    with django_capture_on_commit_callbacks(execute=True):
        cluster, created = services.register_cluster(
            name="member-new", region="local", zone="local-1a", role=FederationRole.MEMBER,
            api_server="https://127.0.0.1:1", kubeconfig_path="/nonexistent", kube_context="member-new",
        )  # fmt: skip

    assert created
    assert queued == [(cluster.pk,)]


def test_an_unwired_registry_refuses_a_pool_edit_rather_than_judge_it_against_no_grants(monkeypatch, admin_user):
    member = make_cluster("member-a")
    make_pool(member, "reserved", 40)
    monkeypatch.setattr(hooks, "_wired", None)

    with pytest.raises(hooks.NotWired, match="projects app"):
        services.update_pool(member.pk, "reserved", services.PoolInput("10", "0", "0"), actor=admin_user)
