# ruff: noqa: F811 - fixtures imported from tests.support are named as parameters
"""A team's name finds its projects (the ones the user may see), and project and workload hits carry their team: the
project's, or a workload's own ``spec.team``."""

from __future__ import annotations

import pytest

from projects.models import Membership, Project
from search import services
from search.ranking import Rank
from tests.support.api_host import client_for
from tests.support.factories import HOST, fill, workload_cr
from tests.support.projects import caches, developer, fast_passwords  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def teams(caches, developer):
    """``ads`` and ``ads-ranking`` of the team ``payments`` (the developer's), ``ml`` of ``payments-ml`` (not)."""
    for name, team in (("ads", "payments"), ("ads-ranking", "payments"), ("ml", "payments-ml")):
        project = Project.objects.create(name=name, team=team, cost_center="CC-1")
        if name != "ml":
            Membership.objects.create(project=project, user=developer, role="developer")
    own = workload_cr("checkout", project="ads")
    own["spec"]["team"] = "checkout-crew"
    bare = workload_cr("cart", project="ads-ranking")
    del bare["spec"]["team"]  # written by kubectl without one
    fill(caches, HOST, own, bare)


def test_a_team_name_finds_its_projects_and_not_another_tenants(teams, developer):
    hits = services.search(developer, "payments").hits

    assert [(h.kind, h.name, h.team, h.rank) for h in hits] == [
        ("project", "ads", "payments", Rank.EXACT),
        ("project", "ads-ranking", "payments", Rank.EXACT),
    ]


def test_a_workload_hit_says_its_own_team_else_its_projects(teams, developer):
    answer = client_for(developer).get("/api/v1/search/", {"q": "c"})

    found = {r["name"]: (r["team"], r["where"]) for r in answer.json()["results"] if r["kind"] == "workload"}
    assert found == {
        "checkout": ("checkout-crew", "PinApp in ads, team checkout-crew"),
        "cart": ("payments", "PinApp in ads-ranking, team payments"),
    }
