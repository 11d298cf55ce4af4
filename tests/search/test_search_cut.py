# ruff: noqa: F811 - fixtures imported from tests.support are named as parameters
"""The search's shortcuts never change its answer: with more projects than are read one namespace at a time (the
store's name index), and sources that stop ranking worse names once the list is full (``Best.floor``), the hits
are the first of every visible match sorted by rank, kind and name, whatever the names and the query."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projects.models import Membership, Project
from search import services
from search.ranking import rank
from search.sources import KIND_ORDER, PER_NAMESPACE
from tests.support.fakes import FilledCache, fake_pod
from tests.support.projects import caches, developer, fast_passwords  # noqa: F401

pytestmark = pytest.mark.django_db
PROJECTS = PER_NAMESPACE + 10
NAME = st.text("ab-", min_size=1, max_size=5).filter(lambda n: n[0] != "-" and n[-1] != "-")


@pytest.fixture
def mine(developer):
    """A developer of PROJECTS projects, and one project they may not see."""
    projects = Project.objects.bulk_create(
        [Project(name=f"p{i:03d}", team="t", cost_center="CC") for i in range(PROJECTS + 1)]
    )
    Membership.objects.bulk_create([Membership(project=p, user=developer, role="developer") for p in projects[:-1]])
    return [p.namespace for p in projects]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pods=st.lists(st.tuples(NAME, st.integers(0, PROJECTS)), max_size=60),
    query=st.text("ab-", min_size=1, max_size=2),
    limit=st.integers(1, 6),
)
def test_the_hits_are_the_first_of_every_visible_match_sorted(caches, developer, mine, pods, query, limit):
    caches["member-a"] = FilledCache({"pods": [fake_pod(f"x{n}", mine[i]) for n, i in pods]})
    visible = set(mine[:-1])

    hits = services.search(developer, query, limit).hits

    expected = sorted(
        (found, KIND_ORDER.index("pod"), len(name), name)
        for name, ns in {(f"x{n}", mine[i]) for n, i in pods}
        if ns in visible and (found := rank(name, query)) is not None
    )
    projects = sorted(
        (found, 0, len(p), p)
        for p in (ns.removeprefix("proj-") for ns in visible)
        if (found := rank(p, query)) is not None
    )
    assert [(h.rank, KIND_ORDER.index(h.kind), len(h.name), h.name) for h in hits] == sorted(expected + projects)[
        :limit
    ]
