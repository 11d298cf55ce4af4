"""Concurrency on real PostgreSQL with real threads: grants in a tier never exceed what its pools hold,
a pool never shrinks under grants made at the same moment, and a project always keeps an owner.

Each test starts its threads at one barrier so the transactions really overlap; without the row locks
(``projects.grants.lock_tiers``, ``projects.access.lock_project``) every one of them over-grants or
leaves a project without an owner.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from django.db import connection

from base.errors import ServiceError
from clusters import services as cluster_services
from clusters.models import ClusterPool
from projects.grants import QuotaInput
from projects.members import MemberInput, remove_member, set_member
from projects.models import Membership, QuotaRequest, TierQuota
from projects.quota import approve_request, change_quota
from tests.support.concurrency import run_together
from tests.support.factories import make_cluster, make_pool, make_project

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def postgresql(caches: Any) -> None:
    if os.environ.get("PINCONSOLE_TEST_LIGHT") == "1":
        pytest.skip("needs PostgreSQL's row locks; PINCONSOLE_TEST_LIGHT runs on SQLite")
    assert connection.vendor == "postgresql", "the harness provides PostgreSQL"


def reserved_cpu_granted() -> int:
    return sum(TierQuota.objects.filter(tier="reserved").values_list("cpu_milli", flat=True))


def reserved_cpu_pools() -> int:
    return sum(ClusterPool.objects.filter(kind="reserved").values_list("cpu_milli", flat=True))


@pytest.fixture
def twenty_projects(user: Any) -> list[Any]:
    make_pool(make_cluster("member-a"), "reserved", 40, 160)
    make_pool(make_cluster("member-b", zone="local-1b"), "reserved", 24, 96)
    return [make_project(f"team-{i:02d}", user) for i in range(20)]


def test_twenty_owners_asking_at_once_never_get_more_than_the_pools_hold(twenty_projects, user):
    """Each asks 8 cpu: within the auto-approve limit and, alone, within the 64 the pools hold."""
    results = run_together(
        [lambda p=p: change_quota(p, "reserved", QuotaInput(cpu="8"), actor=user) for p in twenty_projects]
    )

    applied = [r for r in results if r.applied]
    assert len(applied) == 8 and reserved_cpu_granted() == 64_000 == reserved_cpu_pools()
    assert QuotaRequest.objects.filter(state="pending").count() == 12  # the rest wait for a platform admin


def test_approvals_at_once_never_grant_more_than_the_pools_hold(twenty_projects, user, admin_user):
    requests = [change_quota(p, "reserved", QuotaInput(cpu="12"), actor=user).request for p in twenty_projects]

    results = run_together([lambda r=r: approve_request(r.pk, actor=admin_user) for r in requests])

    approved = [r for r in results if not isinstance(r, ServiceError)]
    assert len(approved) == 5 and reserved_cpu_granted() == 60_000 <= reserved_cpu_pools()
    assert QuotaRequest.objects.filter(state="applied").count() == 5


def test_a_pool_shrinking_while_grants_are_made_never_ends_below_them(twenty_projects, user, admin_user):
    """One admin shrinks member-a's reserved pool from 40 to 16 while ten owners ask 8 each."""
    pool = ClusterPool.objects.get(cluster__name="member-a", kind="reserved")
    shrink = lambda: cluster_services.update_pool(  # noqa: E731 - one call among the others
        pool.cluster_id, "reserved", cluster_services.PoolInput(cpu="16", memory="160Gi", gpu="0"), actor=admin_user
    )
    asks = [lambda p=p: change_quota(p, "reserved", QuotaInput(cpu="8"), actor=user) for p in twenty_projects[:10]]

    results = run_together([shrink, *asks])

    assert reserved_cpu_granted() <= reserved_cpu_pools()
    shrunk = not isinstance(results[0], ServiceError)
    granted = sum(1 for r in results[1:] if not isinstance(r, ServiceError) and r.applied)
    assert (shrunk and granted == 5) or (not shrunk and granted == 8)


def test_two_owners_removing_each_other_at_once_leave_one(db: Any, user: Any, other_user: Any, region: None):
    project = make_project("ads", user)
    set_member(project, MemberInput("user", other_user.username, "owner"), actor=user)

    results = run_together(
        [
            lambda: remove_member(project, "user", other_user.username, actor=user),
            lambda: remove_member(project, "user", user.username, actor=other_user),
        ]
    )

    owners = list(Membership.objects.filter(project=project, role="owner").values_list("user__username", flat=True))
    assert len(owners) == 1
    assert sum(isinstance(r, ServiceError) for r in results) == 1
