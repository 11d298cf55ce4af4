"""Concurrency on real PostgreSQL with real threads: two registry edits, or a registry edit and a grant change,
that each fit alone but together would over-grant the region are serialized by the pool row locks, so the
second one judges what the first one left and is refused."""

from __future__ import annotations

import os
from typing import Any

import pytest
from django.db import connection

from base.errors import Invalid
from clusters import services
from clusters.models import Cluster
from pincompute.tiers import Tier
from projects.grants import QuotaInput, headroom
from projects.quota import change_quota
from tests.support.concurrency import run_together
from tests.support.factories import make_cluster, make_pool, make_quota

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def postgresql() -> None:
    if os.environ.get("PINCONSOLE_TEST_LIGHT") == "1":
        pytest.skip("needs PostgreSQL's row locks; PINCONSOLE_TEST_LIGHT runs on SQLite")
    assert connection.vendor == "postgresql", "the harness provides PostgreSQL"


@pytest.fixture
def members() -> list[Cluster]:
    found = []
    for name, zone, cores in (("member-a", "local-1a", 648), ("member-b", "local-1b", 648), ("member-c", "z", 400)):
        cluster = make_cluster(name, zone=zone)
        make_pool(cluster, "reserved", cores)
        found.append(cluster)
    return found


def test_a_pool_shrink_and_closing_another_member_at_once_never_over_grant(members, admin_user):
    a, _, c = members
    make_quota("reserved", 1000)  # 1696 in the pools: either edit alone leaves enough, both leave 948

    results = run_together(
        [
            lambda: services.update_pool(a.pk, "reserved", services.PoolInput("300", "0", "0"), actor=admin_user),
            lambda: services.update_cluster_attributes(c.pk, {"schedulable": False}, actor=admin_user),
        ]
    )

    assert sum(isinstance(r, Invalid) for r in results) == 1, results
    assert headroom(Tier.RESERVED).cpu_milli >= 0


def test_a_grant_increase_and_closing_a_member_at_once_never_over_grant(members, admin_user):
    _, b, c = members
    services.update_cluster_attributes(c.pk, {"schedulable": False}, actor=admin_user)
    project = make_quota("reserved", 600).project  # 1296 in the pools now

    results: list[Any] = run_together(
        [
            lambda: change_quota(project, "reserved", QuotaInput(cpu="1000"), actor=admin_user),
            lambda: services.update_cluster_attributes(b.pk, {"schedulable": False}, actor=admin_user),
        ]
    )

    assert headroom(Tier.RESERVED).cpu_milli >= 0, results
