"""Tenant scoping: a user sees only their projects and the workloads in those projects' namespaces."""

import pytest

from projects.members import MemberInput, set_member
from projects.models import Project
from tests.support.factories import make_project
from tests.support.fakes import FilledCache

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


ROLES = (None, "viewer", "developer", "owner")


@pytest.mark.parametrize("own", ROLES)
@pytest.mark.parametrize("via_group", ROLES)
def test_visible_project_role_answers_as_visible_project_and_roles_of_together(user, own, via_group):
    """The pods API asks for the project and the caller's role in one query: the same answers as the two it replaced
    (visibility through their own or a group's membership, the highest role of the two)."""
    from django.contrib.auth.models import Group

    from base.errors import NotFound
    from projects.access import roles_of, visible_project, visible_project_role
    from projects.models import Membership

    project = Project.objects.create(name="ads", team="ads", cost_center="CC-1")
    Project.objects.create(name="ml", team="ml", cost_center="CC-2")
    group = Group.objects.create(name="oidc-ads")
    user.groups.add(group)
    if own:
        Membership.objects.create(project=project, user=user, role=own)
    if via_group:
        Membership.objects.create(project=project, group=group, role=via_group)

    for name in ("ads", "ml", "absent", "a\x00b"):
        try:
            expected = visible_project(user, name)
        except NotFound:
            with pytest.raises(NotFound):
                visible_project_role(user, name)
            continue
        assert visible_project_role(user, name) == (expected, roles_of(user, [expected])[expected.pk])


def test_visible_project_role_is_admin_for_platform_admins_and_refuses_the_anonymous(admin_user):
    from django.contrib.auth.models import AnonymousUser

    from base.errors import NotFound
    from projects.access import ADMIN, visible_project_role

    project = Project.objects.create(name="ml", team="ml", cost_center="CC-2")

    assert visible_project_role(admin_user, "ml") == (project, ADMIN)
    with pytest.raises(NotFound):
        visible_project_role(admin_user, "absent")
    with pytest.raises(NotFound):
        visible_project_role(AnonymousUser(), "ml")


def test_a_role_counts_only_on_the_membership_that_names_the_user_or_their_group(user, other_user, admin_user):
    """``for_role`` (shells, the catalog's projects): the role and the user (or group) must be one membership's; a
    viewer is not a developer because someone else in the project is one."""
    from django.contrib.auth.models import Group

    from projects.access import roles_of, visible_project_role

    team = Group.objects.create(name="team-ml")
    viewer_only = make_project("viewed", admin_user)
    via_group = make_project("grouped", admin_user)
    set_member(viewer_only, MemberInput("user", user.username, "viewer"), actor=admin_user)
    set_member(viewer_only, MemberInput("user", other_user.username, "developer"), actor=admin_user)
    set_member(via_group, MemberInput("user", user.username, "viewer"), actor=admin_user)
    set_member(via_group, MemberInput("group", team.name, "developer"), actor=admin_user)
    user.groups.add(team)

    writable = set(Project.objects.for_role(user, ("owner", "developer")).values_list("name", flat=True))

    assert writable == {"grouped"}
    assert roles_of(user, [viewer_only, via_group]) == {viewer_only.pk: "viewer", via_group.pk: "developer"}
    assert visible_project_role(user, "grouped")[1] == "developer" and viewer_only.role_of(user) == "viewer"
