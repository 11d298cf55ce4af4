"""Tenant scoping: a user sees only their projects and the workloads in those projects' namespaces."""

import pytest

from projects.members import MemberInput, set_member
from projects.models import Project
from tests.fakes import FilledCache
from tests.projects.factories import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_projects(user, other_user, admin_user):
    mine = make_project("ads", admin_user, cost_center="CC-1")
    theirs = make_project("ml", other_user, cost_center="CC-2")
    set_member(mine, MemberInput("user", user.username, "developer"), actor=admin_user)
    return mine, theirs


def test_visible_to_returns_only_memberships_and_everything_for_admins(two_projects, user, admin_user):
    assert list(Project.objects.visible_to(user).values_list("name", flat=True)) == ["ads"]
    assert list(Project.objects.visible_to(admin_user).values_list("name", flat=True)) == ["ads", "ml"]


def test_another_tenants_project_is_a_404_not_a_403(two_projects, user_client):
    assert user_client.get("/projects/ads/").status_code == 200
    response = user_client.get("/projects/ml/")

    assert response.status_code == 404
    assert b"CC-2" not in response.content and b"proj-ml" not in response.content


def test_project_list_shows_only_my_projects(two_projects, user_client):
    body = user_client.get("/projects/").content

    assert b'href="/projects/ads/"' in body and b'href="/projects/ml/"' not in body


def test_workload_list_reads_the_cache_and_hides_other_tenants(two_projects, user_client, monkeypatch):
    def cr(name, namespace):
        return {
            "metadata": {"name": name, "namespace": namespace, "creationTimestamp": "2026-11-22T00:00:00Z"},
            "spec": {"tier": "OnDemand"},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]},
        }

    cache = FilledCache({"pinapps": [cr("ranker", "proj-ads"), cr("trainer", "proj-ml")]})
    monkeypatch.setattr("clusters.runtime.host_cache", lambda: cache)  # workloads are the host's objects
    monkeypatch.setattr("clusters.runtime.member_caches", lambda: {})

    body = user_client.get("/workloads/").content

    assert b"ranker" in body and b"trainer" not in body
