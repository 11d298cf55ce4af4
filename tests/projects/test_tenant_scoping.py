"""Tenant scoping: a user sees only their projects and the workloads in those projects' namespaces."""

import pytest

from projects import services
from projects.models import Project
from tests.fakes import FilledCache

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_projects(user, other_user, admin_user):
    mine = services.create_project(name="ads", team="ads", cost_center="CC-1", actor=admin_user)
    theirs = services.create_project(name="ml", team="ml", cost_center="CC-2", actor=admin_user)
    services.add_member(project=mine, user=user, role="developer", actor=admin_user)
    services.add_member(project=theirs, user=other_user, role="owner", actor=admin_user)
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
    monkeypatch.setattr("clusters.runtime.member_caches", lambda: {"member-a": cache})

    body = user_client.get("/workloads/").content

    assert b"ranker" in body and b"trainer" not in body


def test_project_names_are_validated_and_creation_is_audited(admin_user):
    from base.errors import Conflict, Invalid
    from base.models import AuditEvent

    with pytest.raises(Invalid) as refused:
        services.create_project(name="Bad_Name", team="t", cost_center="c", actor=admin_user)
    assert [f.path for f in refused.value.fields] == ["name"]
    services.create_project(name="good", team="t", cost_center="c", actor=admin_user)
    with pytest.raises(Conflict, match="already exists"):
        services.create_project(name="good", team="t", cost_center="c", actor=admin_user)
    assert AuditEvent.objects.filter(action="project.create").count() == 1
