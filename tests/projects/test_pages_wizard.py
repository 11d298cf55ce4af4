"""The onboarding wizard's pages: one htmx step at a time, errors beside the fields (400, or 409 for a
taken name), what was typed kept in the session, nothing created before the last step, then the project."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from base.models import AuditEvent
from projects.models import Project, QuotaRequest, TierQuota
from tests.support.factories import make_project
from tests.support.projects_pages import (
    BASICS,
    HX,
    invalid_feedback,
    members_post,
    nothing_created,
    quotas_post,
    start,
    step,
    walk_to_review,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def wizard(user_client, region, caches):
    return start(user_client)


def test_the_project_list_has_a_new_project_button_and_the_wizard_starts_at_basics(user_client, region):
    listing = user_client.get("/projects/").content.decode()
    first = user_client.get("/projects/new/", follow=True)  # to the new wizard's own basics URL

    assert 'href="/projects/new/"' in listing and "New project" in listing
    assert first.status_code == 200 and 'aria-current="step"' in first.content.decode()
    assert 'name="name"' in first.content.decode()


@pytest.mark.parametrize(
    ("name", "says"),
    [("Search", "lowercase"), ("se_arch", "lowercase letters, digits and '-'"), ("", "Give the project a name")],
)
def test_a_name_that_is_not_dns_safe_is_refused_beside_the_field_and_kept(user_client, wizard, name, says):
    response = user_client.post(wizard, {**BASICS, "name": name, "go": "next"}, **HX)

    html = response.content.decode()
    assert response.status_code == 400
    assert "<html" not in html and 'id="wizard"' in html
    assert any(says in e for e in invalid_feedback(html))
    assert f'value="{name}"' in html or not name  # what was typed stays in the field
    assert nothing_created()


def test_a_taken_name_is_a_conflict_beside_the_name(user_client, wizard, other_user):
    make_project("search", other_user)

    response = user_client.post(wizard, {**BASICS, "go": "next"}, **HX)

    assert response.status_code == 409
    assert "A project named 'search' already exists." in invalid_feedback(response.content.decode())


def test_missing_team_and_cost_center_are_named_beside_their_fields(user_client, wizard):
    response = user_client.post(wizard, {**BASICS, "team": "", "cost_center": " ", "go": "next"}, **HX)

    assert response.status_code == 400
    assert set(invalid_feedback(response.content.decode())) == {"Give the team.", "Give the cost center."}


def test_the_live_name_check_says_free_or_why_not(user_client, other_user, region):
    make_project("taken", other_user)

    free = user_client.get("/projects/new/name-check/?name=fresh").content.decode()
    taken = user_client.get("/projects/new/name-check/?name=taken").content.decode()
    bad = user_client.get("/projects/new/name-check/?name=Bad").content.decode()

    assert "is free" in free and "proj-fresh" in free
    assert "already exists" in taken
    assert "lowercase" in bad


def test_basics_lead_to_members_and_back_keeps_what_was_typed(user_client, wizard):
    to_members = user_client.post(wizard, {**BASICS, "go": "next"}, **HX)
    typed = user_client.post(step(wizard, "members"), members_post(("user", "dev2x", "viewer"), go="back"), **HX)
    again = user_client.get(step(wizard, "members"), **HX)

    assert to_members.status_code == 200 and to_members["HX-Push-Url"] == step(wizard, "members")
    assert "Owners and members" in to_members.content.decode()
    assert typed.status_code == 200 and 'value="search"' in typed.content.decode()  # back on basics, filled
    assert 'value="dev2x"' in again.content.decode()  # the unchecked row was kept too
    assert nothing_created()


def test_a_step_not_reached_yet_redirects_to_the_one_reached(user_client, wizard):
    response = user_client.get(step(wizard, "review"))

    assert response.status_code == 302 and response["Location"] == wizard


def test_an_unknown_user_or_group_is_refused_beside_its_row(user_client, wizard, other_user):
    user_client.post(wizard, {**BASICS, "go": "next"}, **HX)

    response = user_client.post(
        step(wizard, "members"),
        members_post(("user", other_user.username, "developer"), ("group", "nobody", "viewer"), ("user", "", "viewer")),
        **HX,
    )

    html = response.content.decode()
    assert response.status_code == 400
    assert invalid_feedback(html) == ["There is no group named 'nobody'."]
    assert html.index("There is no group named") > html.index('value="nobody"')  # beside the second row
    assert nothing_created()


def test_members_rows_are_added_and_removed_without_checking(user_client, wizard, other_user):
    user_client.post(wizard, {**BASICS, "go": "next"}, **HX)

    added = user_client.post(step(wizard, "members"), members_post(("user", "nob", "viewer"), go="add"), **HX)
    removed = user_client.post(
        step(wizard, "members"), members_post(("user", "nob", "viewer"), ("user", "", "viewer"), go="remove-0"), **HX
    )

    assert added.status_code == 200 and 'name="members-1-name"' in added.content.decode()
    assert removed.status_code == 200 and 'value="nob"' not in removed.content.decode()


def test_the_member_lookup_finds_users_and_groups(user_client, other_user):
    Group.objects.create(name="dev-oncall")

    html = user_client.get("/projects/new/lookup/?members-0-name=dev&row=members-0-", **HX).content.decode()

    assert 'data-pick-name="dev2"' in html and 'data-pick-name="dev-oncall"' in html
    assert 'data-pick-kind="group"' in html and 'data-pick-row="members-0-"' in html


@pytest.mark.parametrize(
    ("amounts", "field", "says"),
    [
        ({"cpu": "lots"}, "reserved-cpu", "is not a quantity"),
        ({"memory": "-1Gi"}, "reserved-memory", "is negative"),
        ({"cpu": "65"}, "reserved-cpu", "more than the 64 left in the region's Reserved pools"),
    ],
)
def test_quota_that_is_malformed_or_above_headroom_is_refused_beside_the_field(
    user_client, wizard, amounts, field, says
):
    user_client.post(wizard, {**BASICS, "go": "next"}, **HX)
    user_client.post(step(wizard, "members"), members_post(), **HX)

    response = user_client.post(step(wizard, "quotas"), quotas_post(reserved=amounts), **HX)

    html = response.content.decode()
    assert response.status_code == 400
    errors = invalid_feedback(html)
    assert len(errors) == 1 and says in errors[0]
    assert f'id="id_{field}_error"' in html
    assert nothing_created()


def test_the_quota_step_shows_each_pools_headroom_per_cluster(user_client, wizard):
    user_client.post(wizard, {**BASICS, "go": "next"}, **HX)

    html = user_client.post(step(wizard, "members"), members_post(), **HX).content.decode()

    assert "Pool headroom now" in html and "member-a" in html and "member-b" in html
    assert "Region, ungranted" in html
    assert "8 cpu, 32Gi memory, 0 gpu and 50 pods" in html  # the auto-approve limit


def test_the_review_shows_the_yaml_every_cluster_will_hold_and_nothing_is_created(
    user_client, wizard, other_user, user
):
    html = walk_to_review(user_client, wizard, other_user, reserved={"cpu": "12"})

    assert "What will be created on every cluster" in html
    for cluster in ("member-a", "member-b"):
        assert f'id="manifest-{cluster}"' in html
    assert "kind: Namespace" in html and "name: proj-search" in html
    assert "kind: RoleBinding" in html and "name: pincompute-project-owner" in html
    assert f"name: {user.username}" in html and "name: search-oncall" in html  # the creator joins as an owner
    assert "kind: ResourceQuota" in html and "kind: LimitRange" in html
    assert "request for approval" in html and "more than the 8 approved without review" in html  # reserved 12
    assert "granted at once" in html  # ondemand 2
    assert nothing_created() and not AuditEvent.objects.exists()


def test_create_makes_the_project_and_opens_its_page(user_client, wizard, other_user, user):
    walk_to_review(user_client, wizard, other_user, reserved={"cpu": "12"})

    response = user_client.post(f"/projects/new/{wizard.split('/')[3]}/create/", **HX)

    assert response.status_code == 200 and response["HX-Redirect"] == "/projects/search/"
    project = Project.objects.get(name="search")
    assert project.role_of(user) == "owner" and project.role_of(other_user) == "viewer"
    assert TierQuota.objects.get(project=project, tier="ondemand").cpu_milli == 2000
    assert QuotaRequest.objects.get(project=project).requested["cpu_milli"] == 12000  # pending, not granted
    page = user_client.get("/projects/search/").content.decode()
    assert "Created search" in page and 'id="provisioning"' in page
    assert user_client.get(wizard).status_code == 200  # the draft is gone: a fresh basics step
    assert 'value="search"' not in user_client.get(wizard).content.decode()


def test_create_sends_back_to_the_step_a_late_refusal_points_at(user_client, wizard, other_user, user):
    walk_to_review(user_client, wizard, other_user)
    make_project("search", other_user)  # someone took the name meanwhile

    response = user_client.post(f"/projects/new/{wizard.split('/')[3]}/create/", **HX)

    assert response.status_code == 409
    assert response["HX-Push-Url"] == wizard
    assert "A project named 'search' already exists." in invalid_feedback(response.content.decode())
    assert Project.objects.get(name="search").role_of(user) is None


def test_a_plain_post_walks_the_wizard_with_redirects(user_client, wizard, other_user):
    response = user_client.post(wizard, {**BASICS, "go": "next"})

    assert response.status_code == 302 and response["Location"] == step(wizard, "members")


def test_a_platform_admin_must_name_an_owner_and_is_told_above_the_rows(admin_client_, region, caches):
    wizard = start(admin_client_)
    admin_client_.post(wizard, {**BASICS, "go": "next"}, **HX)

    response = admin_client_.post(step(wizard, "members"), members_post(), **HX)

    assert response.status_code == 400
    assert "A project needs at least one owner." in response.content.decode()
    assert "you join as an owner" not in response.content.decode()


def test_a_member_deleted_before_create_is_named_beside_its_row(user_client, wizard, other_user, user):
    walk_to_review(user_client, wizard, other_user)
    other_user.delete()  # between the members step and create

    response = user_client.post(f"/projects/new/{wizard.split('/')[3]}/create/", **HX)

    assert response.status_code == 400
    assert response["HX-Push-Url"] == step(wizard, "members")
    assert invalid_feedback(response.content.decode()) == ["There is no user named 'dev2'."]
    assert nothing_created()


@pytest.mark.parametrize("post", [{}, {"go": "next"}, {"members-TOTAL_FORMS": "x", "go": "next"}], ids=str)
def test_a_members_post_without_its_management_form_is_no_members_not_a_500(user_client, wizard, post):
    user_client.post(wizard, {**BASICS, "go": "next"}, **HX)

    response = user_client.post(step(wizard, "members"), post, **HX)

    assert response.status_code == 200 and response["HX-Push-Url"] == step(wizard, "quotas")  # the creator owns it
    assert nothing_created()


def test_a_nul_in_the_basics_is_refused_beside_the_field_and_the_lookup_ignores_it(user_client, wizard):
    user_client.raise_request_exception = False

    response = user_client.post(wizard, {**BASICS, "display_name": "Se\x00arch", "go": "next"}, **HX)
    lookup = user_client.get("/projects/new/lookup/?q=de%00v")

    assert response.status_code == 400
    assert any("Remove the NUL character" in e for e in invalid_feedback(response.content.decode()))
    assert lookup.status_code == 200
    assert nothing_created()
