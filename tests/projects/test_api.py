"""The Projects API, role by role: owners manage members and ask for quota, developers and viewers read,
platform admins see and decide everything; all through the services the pages use."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from accounts.services import create_api_token
from base.models import AuditEvent
from projects.grants import QuotaInput
from projects.members import MemberInput, set_member
from projects.models import Membership, Project, QuotaRequest, TierQuota
from projects.quota import change_quota
from tests.support.factories import make_project

pytestmark = pytest.mark.django_db
ZERO = {"cpu": "0", "memory": "0", "gpu": "0", "pods": "0"}


def grant(project: Project, tier: str) -> dict[str, int]:
    q = TierQuota.objects.get(project=project, tier=tier)
    return {"cpu_milli": q.cpu_milli, "memory_bytes": q.memory_bytes, "gpu": q.gpu, "pods": q.pods}


def as_(api_client, user):
    api_client.force_authenticate(user)
    return api_client


# --- projects ---------------------------------------------------------------------------------------------


def test_the_api_root_links_projects_and_quota_requests(api_client):
    body = api_client.get("/api/v1/").json()

    assert body["projects"].endswith("/api/v1/projects/")
    assert body["quota_requests"].endswith("/api/v1/quota-requests/")


@pytest.mark.parametrize(("who", "role"), [("owner", "owner"), ("developer", "developer"), ("viewer", "viewer")])
def test_members_list_their_projects_with_their_role_state_and_grants(
    api_client, project, other_project, request, who, role
):
    change_quota(
        project, "ondemand", QuotaInput(cpu="8", memory="32Gi", pods="50"), actor=request.getfixturevalue("owner")
    )

    body = as_(api_client, request.getfixturevalue(who)).get("/api/v1/projects/").json()

    assert body["count"] == 1
    [listed] = body["results"]
    assert (listed["name"], listed["role"], listed["state"], listed["namespace"]) == ("ads", role, "active", "proj-ads")
    assert listed["grants"]["ondemand"] == {"cpu": "8", "memory": "32Gi", "gpu": "0", "pods": "50"}
    assert listed["grants"]["reserved"] == listed["grants"]["preemptible"] == ZERO


def test_platform_admins_list_every_project_and_filter_by_state(api_client, project, other_project, admin_user):
    Project.objects.filter(name="ml").update(state="archived")
    client = as_(api_client, admin_user)

    every = client.get("/api/v1/projects/").json()["results"]
    archived = client.get("/api/v1/projects/?state=archived").json()["results"]

    assert [(p["name"], p["role"]) for p in every] == [("ads", "admin"), ("ml", "admin")]
    assert [p["name"] for p in archived] == ["ml"]


def test_the_effective_role_is_the_highest_of_own_and_group_roles(api_client, project, owner, developer):
    group = Group.objects.create(name="ads-leads")
    developer.groups.add(group)
    set_member(project, MemberInput("group", "ads-leads", "owner"), actor=owner)

    listed = as_(api_client, developer).get("/api/v1/projects/").json()["results"]
    detail = api_client.get("/api/v1/projects/ads/").json()

    assert listed[0]["role"] == detail["role"] == "owner"


def test_onboarding_creates_the_project_members_grants_and_pending_requests(
    api_client, region, caches, other_user, user
):
    Group.objects.create(name="ads-devs")
    body = {
        "name": "ranking",
        "display_name": "Ranking",
        "team": "ads",
        "cost_center": "CC-7",
        "members": [{"kind": "user", "name": "dev1", "role": "viewer"}, {"kind": "group", "name": "ads-devs"}],
        "quotas": {"ondemand": {"cpu": "8", "memory": "32Gi", "pods": "50"}, "reserved": {"cpu": "2", "gpu": "2"}},
    }

    response = as_(api_client, other_user).post("/api/v1/projects/", body, format="json")

    assert response.status_code == 201, response.json()
    created = response.json()
    assert response["Location"].endswith("/api/v1/projects/ranking/")
    assert (created["name"], created["role"], created["team"], created["pod_security"]) == (
        "ranking",
        "owner",
        "ads",
        "baseline",
    )
    assert created["grants"]["ondemand"] == {"cpu": "8", "memory": "32Gi", "gpu": "0", "pods": "50"}
    assert created["grants"]["reserved"] == ZERO  # 2 GPUs are beyond the auto-approve limit: asked for
    [pending] = created["pending_requests"]
    assert (pending["tier"], pending["state"], pending["requested"]["gpu"], pending["requested_by"]) == (
        "reserved",
        "pending",
        "2",
        "dev2",
    )
    project = Project.objects.get(name="ranking")
    assert {m.subject: m.role for m in project.memberships.all()} == {
        "user:dev2": "owner",
        "user:dev1": "viewer",
        "group:ads-devs": "developer",
    }
    assert AuditEvent.objects.filter(action="project.create", target_name="ranking").count() == 1


def test_a_platform_admin_onboards_for_a_team_without_joining_it(api_client, region, caches, admin_user, user):
    body = {
        "name": "infra",
        "team": "infra",
        "cost_center": "CC-1",
        "members": [{"kind": "user", "name": "dev1", "role": "owner"}],
    }

    response = as_(api_client, admin_user).post("/api/v1/projects/", body, format="json")

    assert response.status_code == 201 and response.json()["role"] == "admin"
    assert response.json()["pending_requests"] == []
    assert list(Membership.objects.filter(project__name="infra").values_list("user__username", "role")) == [
        ("dev1", "owner")
    ]


@pytest.mark.parametrize("who", ["owner", "developer", "viewer", "admin_user"])
def test_every_member_and_platform_admins_read_a_project(api_client, project, request, who):
    response = as_(api_client, request.getfixturevalue(who)).get("/api/v1/projects/ads/")

    assert response.status_code == 200
    assert response.json()["cost_center"] == "CC-1" and response.json()["generation"] >= 1


def test_an_owner_edits_the_description_fields(api_client, project, owner):
    response = as_(api_client, owner).patch(
        "/api/v1/projects/ads/", {"display_name": "Ads", "team": "ads-infra", "description": "Ranking."}, format="json"
    )

    assert response.status_code == 200
    assert (response.json()["display_name"], response.json()["team"]) == ("Ads", "ads-infra")
    project.refresh_from_db()
    assert (project.team, project.description) == ("ads-infra", "Ranking.")
    assert AuditEvent.objects.get(action="project.update").after == {
        "display_name": "Ads",
        "team": "ads-infra",
        "description": "Ranking.",
    }


def test_a_platform_admin_sets_the_pod_security_level_and_the_description(api_client, project, admin_user):
    response = as_(api_client, admin_user).patch(
        "/api/v1/projects/ads/", {"pod_security": "restricted", "cost_center": "CC-9"}, format="json"
    )

    assert response.status_code == 200 and response.json()["pod_security"] == "restricted"
    project.refresh_from_db()
    assert (project.pod_security, project.cost_center) == ("restricted", "CC-9")


def test_an_owner_archives_a_project_without_workloads(api_client, project, owner):
    change_quota(project, "ondemand", QuotaInput(cpu="4"), actor=owner)

    response = as_(api_client, owner).post("/api/v1/projects/ads/archive/")

    assert response.status_code == 200
    assert response.json()["state"] == "archived" and response.json()["grants"]["ondemand"] == ZERO
    assert Project.objects.get(name="ads").archived_at is not None


def test_a_personal_token_reads_the_projects(api_client, project, viewer):
    _, raw = create_api_token(user=viewer, name="cli", days=7)
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")

    assert [p["name"] for p in api_client.get("/api/v1/projects/").json()["results"]] == ["ads"]


# --- members ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["viewer", "developer"])
def test_every_member_reads_the_members(api_client, project, request, who):
    client = as_(api_client, request.getfixturevalue(who))

    listed = client.get("/api/v1/projects/ads/members/")
    one = client.get("/api/v1/projects/ads/members/user/devi/")

    assert listed.status_code == 200
    assert listed.json() == [
        {"kind": "user", "name": "dev1", "role": "owner"},
        {"kind": "user", "name": "devi", "role": "developer"},
        {"kind": "user", "name": "vic", "role": "viewer"},
    ]
    assert one.json() == {"kind": "user", "name": "devi", "role": "developer"}


def test_an_owner_adds_a_group_changes_a_role_and_removes_a_member(api_client, project, owner, viewer):
    Group.objects.create(name="ml-team")
    client = as_(api_client, owner)

    added = client.put("/api/v1/projects/ads/members/group/ml-team/", {"role": "viewer"}, format="json")
    promoted = client.put("/api/v1/projects/ads/members/user/vic/", {"role": "owner"}, format="json")
    removed = client.delete("/api/v1/projects/ads/members/user/devi/")

    assert added.status_code == promoted.status_code == 200
    assert added.json() == {"kind": "group", "name": "ml-team", "role": "viewer"}
    assert promoted.json()["role"] == "owner"
    assert removed.status_code == 204
    assert {m.subject: m.role for m in project.memberships.all()} == {
        "user:dev1": "owner",
        "user:vic": "owner",
        "group:ml-team": "viewer",
    }
    assert AuditEvent.objects.filter(action="project.member.remove", target_name="user:devi").exists()


def test_a_platform_admin_manages_the_members_of_any_project(api_client, other_project, admin_user, user):
    response = as_(api_client, admin_user).put(
        "/api/v1/projects/ml/members/user/dev1/", {"role": "developer"}, format="json"
    )

    assert response.status_code == 200
    assert Membership.objects.get(project=other_project, user=user).role == "developer"


# --- schema and query counts ------------------------------------------------------------------------------

PATHS = [
    "/api/v1/projects/",
    "/api/v1/projects/{name}/",
    "/api/v1/projects/{name}/archive/",
    "/api/v1/projects/{name}/members/",
    "/api/v1/projects/{name}/members/{kind}/{member}/",
    "/api/v1/projects/{name}/quota/",
    "/api/v1/projects/{name}/quota/{tier}/",
    "/api/v1/projects/{name}/quota/{tier}/forced-decrease/preview/",
    "/api/v1/projects/{name}/quota/{tier}/forced-decrease/",
    "/api/v1/quota-requests/",
    "/api/v1/quota-requests/{id}/",
    "/api/v1/quota-requests/{id}/approve/",
    "/api/v1/quota-requests/{id}/reject/",
]
METHODS = {
    "/api/v1/projects/": {"get", "post"},
    "/api/v1/projects/{name}/": {"get", "patch"},
    "/api/v1/projects/{name}/members/{kind}/{member}/": {"get", "put", "delete"},
    "/api/v1/projects/{name}/quota/{tier}/": {"put"},
}


def test_every_projects_endpoint_is_in_the_openapi_schema(client):
    paths = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]

    for path in PATHS:
        assert path in paths, path
        if path in METHODS:
            assert set(paths[path]) - {"parameters"} == METHODS[path], path
    create = paths["/api/v1/projects/"]["post"]
    assert create["requestBody"]["content"]["application/json"]["examples"]
    assert {code for code in create["responses"] if code < "300"} == {"201"}
    assert {code for code in paths["/api/v1/projects/{name}/quota/{tier}/"]["put"]["responses"] if code < "300"} == {
        "200",
        "202",
    }


def test_the_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))


@pytest.mark.parametrize("count", [1, 12])
def test_the_project_list_query_count_is_constant(
    api_client, region, caches, user, django_assert_max_num_queries, count
):
    for i in range(count):
        project = make_project(f"p{i}", user)
        change_quota(project, "ondemand", QuotaInput(cpu="1"), actor=user)
    client = as_(api_client, user)

    with django_assert_max_num_queries(5):
        response = client.get("/api/v1/projects/")

    assert response.json()["count"] == count


@pytest.mark.parametrize("count", [1, 12])
def test_the_quota_request_list_query_count_is_constant(
    api_client, region, caches, user, admin_user, django_assert_max_num_queries, count
):
    for i in range(count):
        change_quota(make_project(f"p{i}", user), "reserved", QuotaInput(gpu="1"), actor=user)
    QuotaRequest.objects.update(decided_by=admin_user)

    for who, most in ((user, 4), (admin_user, 4)):
        client = as_(api_client, who)
        with django_assert_max_num_queries(most):
            response = client.get("/api/v1/quota-requests/")
        assert response.json()["count"] == count


@pytest.mark.parametrize("count", [1, 12])
def test_the_member_list_query_count_is_constant(
    api_client, project, owner, django_user_model, django_assert_max_num_queries, count
):
    for i in range(count):
        django_user_model.objects.create_user(f"u{i}")
        set_member(project, MemberInput("user", f"u{i}", "viewer"), actor=owner)
    client = as_(api_client, owner)

    with django_assert_max_num_queries(3):
        response = client.get("/api/v1/projects/ads/members/")

    assert len(response.json()) == count + 3
