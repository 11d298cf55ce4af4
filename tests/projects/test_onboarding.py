"""Self-service onboarding: each wizard step names every bad field; onboard writes everything or nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from base.errors import Conflict, Invalid, Unauthenticated
from base.models import AuditEvent
from projects.grants import QuotaInput
from projects.members import MemberInput
from projects.models import Membership, Project, QuotaRequest, TierQuota
from projects.onboarding import ProjectDraft, check_basics, check_members, check_quotas, onboard_project

pytestmark = pytest.mark.django_db


def paths(error: Invalid) -> dict[str, str]:
    return {f.path: f.message for f in error.fields}


def draft(**changes) -> ProjectDraft:
    base = ProjectDraft(name="search", display_name="Search", team="search", cost_center="CC-9")
    for name, value in changes.items():
        setattr(base, name, value)
    return base


def nothing_written() -> bool:
    return not (
        Project.objects.exists()
        or Membership.objects.exists()
        or TierQuota.objects.exists()
        or QuotaRequest.objects.exists()
        or AuditEvent.objects.exists()
    )


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("Search", "lowercase"),
        ("s" * 64, "at most 40 characters"),
        ("s" * 41, "this one has 41"),
        ("-search", "Start with a letter"),
        ("9search", "Start with a letter"),
        ("search-", "End with a letter or digit"),
        ("sé arch", "no accents"),
        ("поиск", "no accents"),
        ("se_arch", "lowercase letters, digits and '-'"),
        ("", "Give the project a name"),
        ("new", "reserved"),
        ("tutorial", "reserved"),
        ("requests", "reserved"),
    ],
)
def test_a_bad_name_is_refused_by_the_wizard_and_by_onboard_and_nothing_is_written(user, name, says, caches):
    with pytest.raises(Invalid) as step:
        check_basics(draft(name=name))
    with pytest.raises(Invalid) as whole:
        onboard_project(draft(name=name), actor=user)

    assert says in paths(step.value)["name"]
    assert paths(whole.value)["name"] == paths(step.value)["name"]
    assert nothing_written()


def test_the_longest_name_is_40_characters():
    check_basics(draft(name="s" * 40))


def test_a_taken_name_is_a_conflict_on_name_and_the_first_project_is_untouched(user, other_user, region):
    first = onboard_project(draft(), actor=user)
    events = AuditEvent.objects.count()

    with pytest.raises(Conflict) as step:
        check_basics(draft(team="other"))
    with pytest.raises(Conflict) as whole:
        onboard_project(draft(team="other"), actor=other_user)

    assert [f.path for f in step.value.fields] == ["name"] == [f.path for f in whole.value.fields]
    assert Project.objects.get().team == first.team == "search"
    assert AuditEvent.objects.count() == events


def test_every_basic_field_error_at_once():
    with pytest.raises(Invalid) as refused:
        check_basics(draft(name="Bad", team=" ", cost_center="c" * 41, description="d" * 2001))

    assert set(paths(refused.value)) == {"name", "team", "cost_center", "description"}


def test_members_unknown_user_or_group_duplicates_and_roles_are_named_by_index(user, other_user):
    Group.objects.create(name="ml-team")
    members = [
        MemberInput("user", other_user.username, "developer"),
        MemberInput("user", "nobody", "developer"),
        MemberInput("group", "no-such-group", "viewer"),
        MemberInput("group", "ml-team", "root"),
        MemberInput("user", other_user.username, "viewer"),
        MemberInput("robot", "x", "viewer"),
    ]

    with pytest.raises(Invalid) as refused:
        check_members(draft(members=members), creator=user)

    assert paths(refused.value) == {
        "members[1].name": "There is no user named 'nobody'.",
        "members[2].name": "There is no group named 'no-such-group'.",
        "members[3].role": "'root' is not a role; use one of owner, developer, viewer.",
        "members[4].name": f"{other_user.username} is already listed (members[0]).",
        "members[5].kind": "'robot' is not a member kind; use user or group.",
    }


def test_a_project_needs_an_owner_unless_its_creator_becomes_one(user, other_user, admin_user):
    members = [MemberInput("user", other_user.username, "developer")]

    check_members(draft(members=members), creator=user)  # user joins as owner
    with pytest.raises(Invalid) as listed_lower:
        check_members(draft(members=[*members, MemberInput("user", user.username, "viewer")]), creator=user)
    with pytest.raises(Invalid) as by_admin:
        check_members(draft(members=members), creator=admin_user)  # admins do not join

    assert paths(listed_lower.value) == {"members": "A project needs at least one owner."}
    assert paths(by_admin.value) == {"members": "A project needs at least one owner."}


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("cpu", "-1", "negative"),
        ("cpu", "NaN", "not a quantity"),
        ("memory", "1e309", "exponent out of range"),
        ("gpu", "10Pi", "more than the largest grant"),
        ("gpu", "1.5", "whole number of GPUs"),
        ("pods", "2.5", "whole number of pods"),
        ("cpu", "", "Give a quantity"),
        ("memory", "lots", "not a quantity"),
    ],
)
def test_bad_quantities_are_refused_by_path_and_nothing_is_written(user, region, caches, field, value, says):
    quotas = {"reserved": QuotaInput(**{"cpu": "1", "memory": "1Gi", field: value})}

    with pytest.raises(Invalid) as step:
        check_quotas(draft(quotas=quotas))
    with pytest.raises(Invalid) as whole:
        onboard_project(draft(quotas=quotas), actor=user)

    assert says in paths(step.value)[f"quotas.reserved.{field}"]
    assert f"quotas.reserved.{field}" in paths(whole.value)
    assert nothing_written()


def test_the_wizard_refuses_more_than_the_region_has_left_and_says_how_much(region):
    quotas = {"reserved": QuotaInput(cpu="70", memory="1Gi"), "gold": QuotaInput()}

    with pytest.raises(Invalid) as refused:
        check_quotas(draft(quotas=quotas))

    assert paths(refused.value) == {
        "quotas.reserved.cpu": "Reserved cpu: the increase of 70 is 6 more than the 64 left in the region's "
        "Reserved pools.",
        "quotas.gold": "'gold' is not a tier; use one of reserved, ondemand, preemptible.",
    }


def test_onboard_writes_project_members_and_grants_with_audit_and_follows_up_on_the_clusters(
    user, other_user, region, caches, monkeypatch
):
    Group.objects.create(name="ml-team")
    changed = []
    monkeypatch.setattr("projects.provisioning.project_changed", lambda p: changed.append(p.name))
    members = [MemberInput("user", other_user.username, "developer"), MemberInput("group", "ml-team", "viewer")]
    quotas = {"reserved": QuotaInput(cpu="8", memory="32Gi", gpu="0", pods="50"), "ondemand": QuotaInput(cpu="2")}

    project = onboard_project(draft(members=members, quotas=quotas), actor=user)

    assert project.name == "search" and project.role_of(user) == "owner"
    assert {m.subject: m.role for m in project.memberships.all()} == {
        "user:dev1": "owner",
        "user:dev2": "developer",
        "group:ml-team": "viewer",
    }
    grants = {q.tier: (q.cpu_milli, q.memory_bytes, q.pods) for q in project.quotas.all()}
    assert grants == {"reserved": (8000, 32 * 2**30, 50), "ondemand": (2000, 0, 0), "preemptible": (0, 0, 0)}
    assert not QuotaRequest.objects.exists()
    assert AuditEvent.objects.filter(action="project.member.set").count() == 3
    assert AuditEvent.objects.filter(action="project.quota.set").count() == 2
    created = AuditEvent.objects.get(action="project.create")
    assert created.actor == user and created.after["quotas"]["reserved"]["cpu_milli"] == 8000
    assert changed == ["search"]


def test_a_grant_above_the_auto_approve_limit_or_headroom_becomes_a_pending_request(user, region, caches):
    quotas = {
        "reserved": QuotaInput(cpu="4", gpu="2"),  # gpu: the auto-approve limit is 0
        "ondemand": QuotaInput(cpu="8"),
    }

    project = onboard_project(draft(quotas=quotas), actor=user)

    request = QuotaRequest.objects.get()
    assert (request.project, request.tier, request.state) == (project, "reserved", "pending")
    assert request.requested == {"cpu_milli": 4000, "memory_bytes": 0, "gpu": 2, "pods": 0}
    assert request.previous == {"cpu_milli": 0, "memory_bytes": 0, "gpu": 0, "pods": 0}
    assert project.quotas.get(tier="reserved").cpu_milli == 0
    assert project.quotas.get(tier="ondemand").cpu_milli == 8000
    event = AuditEvent.objects.get(action="project.quota.request")
    assert "approved without review" in event.summary


def test_a_platform_admin_onboards_for_a_team_without_joining_it(admin_user, user, region, caches):
    project = onboard_project(draft(members=[MemberInput("user", user.username, "owner")]), actor=admin_user)

    assert [m.subject for m in project.memberships.all()] == ["user:dev1"]


def test_onboarding_needs_a_signed_in_user(region):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(Unauthenticated):
        onboard_project(draft(), actor=AnonymousUser())
    assert nothing_written()
