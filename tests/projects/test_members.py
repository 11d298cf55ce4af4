"""Members: owners (and platform admins) manage them; a project always keeps an owner."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from base.errors import Conflict, Forbidden, Invalid, NotFound
from base.models import AuditEvent
from projects.members import MemberInput, lookup_subjects, remove_member, set_member
from projects.models import Membership

pytestmark = pytest.mark.django_db


def roles(project) -> dict[str, str]:
    return {m.subject: m.role for m in project.memberships.all()}


def test_an_owner_adds_a_group_and_changes_a_role_with_audit(project, owner, developer, monkeypatch):
    Group.objects.create(name="ml-team")
    changed = []
    monkeypatch.setattr("projects.provisioning.project_changed", lambda p: changed.append(p.name))

    set_member(project, MemberInput("group", "ml-team", "developer"), actor=owner)
    set_member(project, MemberInput("user", developer.username, "owner"), actor=owner)
    set_member(project, MemberInput("user", developer.username, "owner"), actor=owner)  # no change, no audit

    assert roles(project)["group:ml-team"] == "developer" and roles(project)["user:devi"] == "owner"
    event = AuditEvent.objects.filter(action="project.member.set").latest("id")
    assert (event.target_name, event.before, event.after) == ("user:devi", {"role": "developer"}, {"role": "owner"})
    assert changed == ["ads", "ads"]


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_cannot_manage_members(project, request, who, other_user):
    actor = request.getfixturevalue(who)
    before = roles(project)

    with pytest.raises(Forbidden):
        set_member(project, MemberInput("user", other_user.username, "viewer"), actor=actor)
    with pytest.raises(Forbidden):
        remove_member(project, "user", "devi", actor=actor)

    assert roles(project) == before


def test_another_tenants_project_is_not_found(project, other_project, owner, developer):
    before = roles(other_project)

    with pytest.raises(NotFound):
        set_member(other_project, MemberInput("user", developer.username, "owner"), actor=owner)
    with pytest.raises(NotFound):
        remove_member(other_project, "user", "dev2", actor=owner)

    assert roles(other_project) == before


def test_a_removed_member_can_no_longer_manage_members(project, owner, developer, viewer):
    set_member(project, MemberInput("user", developer.username, "owner"), actor=owner)
    remove_member(project, "user", developer.username, actor=owner)

    with pytest.raises(NotFound):
        set_member(project, MemberInput("user", viewer.username, "owner"), actor=developer)
    assert roles(project)["user:vic"] == "viewer"


def test_unknown_users_groups_and_roles_are_refused_and_nothing_changes(project, owner):
    before, events = roles(project), AuditEvent.objects.count()

    with pytest.raises(Invalid) as unknown:
        set_member(project, MemberInput("group", "no-such-group", "viewer"), actor=owner)
    with pytest.raises(Invalid) as bad_role:
        set_member(project, MemberInput("user", "vic", "root"), actor=owner)

    assert {f.path for f in unknown.value.fields} == {"name"}
    assert {f.path for f in bad_role.value.fields} == {"role"}
    assert roles(project) == before and AuditEvent.objects.count() == events


def test_the_last_owner_can_be_neither_removed_nor_demoted(project, owner, admin_user):
    with pytest.raises(Conflict, match="last owner"):
        remove_member(project, "user", owner.username, actor=owner)
    with pytest.raises(Conflict, match="last owner"):
        set_member(project, MemberInput("user", owner.username, "viewer"), actor=admin_user)

    assert roles(project)["user:dev1"] == "owner"


def test_removal_is_audited_and_removing_a_non_member_changes_nothing(project, owner):
    remove_member(project, "user", "vic", actor=owner)
    remove_member(project, "user", "vic", actor=owner)
    remove_member(project, "user", "nobody-at-all", actor=owner)

    assert "user:vic" not in roles(project)
    event = AuditEvent.objects.get(action="project.member.remove")
    assert (event.target_name, event.before, event.after) == ("user:vic", {"role": "viewer"}, None)


def test_a_group_owner_counts_as_an_owner(project, owner):
    Group.objects.create(name="ads-owners")
    set_member(project, MemberInput("group", "ads-owners", "owner"), actor=owner)

    remove_member(project, "user", owner.username, actor=owner)

    assert roles(project) == {"user:devi": "developer", "user:vic": "viewer", "group:ads-owners": "owner"}


def test_a_platform_admin_manages_members_of_any_project(other_project, admin_user, user):
    set_member(other_project, MemberInput("user", user.username, "viewer"), actor=admin_user)

    assert Membership.objects.get(project=other_project, user=user).role == "viewer"


def test_lookup_finds_users_and_groups_for_the_wizard(user, other_user, django_user_model):
    Group.objects.create(name="dev-platform")
    django_user_model.objects.create_user("gone", is_active=False)
    user.first_name, user.last_name = "Dana", "Evans"
    user.save()

    found = lookup_subjects("dev")

    assert found == [
        {"kind": "user", "name": "dev1", "label": "Dana Evans (dev1)"},
        {"kind": "user", "name": "dev2", "label": "dev2"},
        {"kind": "group", "name": "dev-platform", "label": "group dev-platform"},
    ]
    assert lookup_subjects("dev", limit=1) == found[:1]
    assert lookup_subjects("  ") == [] and lookup_subjects("gone") == []


def test_a_deactivated_users_membership_can_still_be_changed_and_removed(project, owner, viewer):
    """Someone who left the company keeps a RoleBinding subject on every cluster until removed here."""
    viewer.is_active = False
    viewer.save(update_fields=["is_active"])

    set_member(project, MemberInput("user", "vic", "developer"), actor=owner)
    assert roles(project)["user:vic"] == "developer"
    remove_member(project, "user", "vic", actor=owner)

    assert "user:vic" not in roles(project)
    with pytest.raises(Invalid, match="There is no user named 'vic'"):  # but nobody adds them anew
        set_member(project, MemberInput("user", "vic", "viewer"), actor=owner)
