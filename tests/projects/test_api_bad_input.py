"""Bad input to the Projects API: every value is named by its field path with the limit, and afterwards
nothing has changed (no project, no membership, no grant, no request, no audit row)."""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest
from django.db import connection

from base.errors import Invalid
from projects.grants import QuotaInput
from projects.members import MemberInput, set_member
from projects.models import Membership, QuotaRequest
from projects.quota import change_quota
from tests.support.factories import HOST, fill, workload_cr
from tests.support.projects_api import CREATE, GRANT, NONE, as_, fields, refused, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def pending(project, owner) -> QuotaRequest:
    """A pending request in ``ads``."""
    return change_quota(project, "reserved", QuotaInput(cpu="40"), actor=owner).request


# --- bad input: onboarding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("Search", "Use lowercase letters"),
        ("s" * 64, "Use at most 40 characters (the namespace is proj-<name>); this one has 64."),
        ("-search", "Start with a letter."),
        ("sé", "no accents"),
        ("поиск", "no accents"),
        ("", "Give the project a name."),
    ],
    ids=["uppercase", "64-chars", "leading-dash", "accent", "cyrillic", "empty"],
)
def test_a_bad_project_name_is_refused_by_field_and_nothing_is_created(region, caches, user, name, says):
    before = snapshot()

    response = as_(user).post("/api/v1/projects/", {**CREATE, "name": name}, format="json")

    assert says in fields(response)["name"]
    assert snapshot() == before


def test_a_taken_name_is_a_409_on_name_and_the_project_is_untouched(project, other_user):
    before = snapshot()

    response = as_(other_user).post("/api/v1/projects/", {**CREATE, "name": "ads"}, format="json")

    assert fields(response, 409) == {"name": "A project named 'ads' already exists."}
    assert snapshot() == before


@pytest.mark.parametrize(
    ("resource", "value", "says"),
    [
        ("cpu", "-1", "'-1' is negative; a grant is 0 or more."),
        ("cpu", "NaN", "'NaN' is not a quantity"),
        ("memory", "1e309", "'1e309' is not a quantity"),
        ("gpu", "10Pi", "'10Pi' is more than the largest grant, 2147483647 GPUs."),
        ("gpu", "0.5", "'0.5' is not a quantity"),
        ("pods", "", "Give a quantity (0 for none)"),
    ],
)
def test_bad_quantities_at_onboarding_are_named_by_path_and_nothing_is_created(
    region, caches, user, resource, value, says
):
    body = {**CREATE, "quotas": {"ondemand": {"cpu": "1"}, "reserved": {resource: value}}}
    before = snapshot()

    response = as_(user).post("/api/v1/projects/", body, format="json")

    assert says in fields(response)[f"quotas.reserved.{resource}"]
    assert snapshot() == before


def test_a_json_number_too_large_for_a_float_is_refused_by_path(region, caches, user):
    raw = '{"name": "search", "team": "s", "cost_center": "c", "quotas": {"reserved": {"gpu": 1e309}}}'
    before = snapshot()

    response = as_(user).post("/api/v1/projects/", raw, content_type="application/json")

    assert "not a quantity" in fields(response)["quotas.reserved.gpu"]
    assert snapshot() == before


def test_every_bad_field_of_an_onboarding_is_named_at_once(region, caches, user):
    body = {
        "name": "-x",
        "team": "",
        "cost_center": "c" * 41,
        "members": [{"kind": "user", "name": "nobody"}, {"kind": "group", "name": "no-group", "role": "boss"}],
        "quotas": {"gold": {"cpu": "1"}, "ondemand": {"gpu": "-2"}},
    }
    before = snapshot()

    response = as_(user).post("/api/v1/projects/", body, format="json")

    found = fields(response)
    assert set(found) == {
        "name",
        "team",
        "cost_center",
        "members[0].name",
        "members[1].name",
        "members[1].role",
        "quotas.gold",
        "quotas.ondemand.gpu",
    }
    assert found["cost_center"] == "Use at most 40 characters; this has 41."
    assert found["members[0].name"] == "There is no user named 'nobody'."
    assert found["members[1].name"] == "There is no group named 'no-group'."
    assert snapshot() == before


def test_malformed_onboarding_shapes_are_named_by_path(region, caches, user):
    before = snapshot()

    missing = as_(user).post("/api/v1/projects/", {"name": "search"}, format="json")
    wrong = as_(user).post("/api/v1/projects/", {**CREATE, "members": [{"kind": True, "name": "x"}]}, format="json")
    form = as_(user).post("/api/v1/projects/", CREATE)  # multipart: the API takes JSON

    assert set(fields(missing)) == {"team", "cost_center"}
    assert set(fields(wrong)) == {"members[0].kind"}
    refused(form, 415)
    assert snapshot() == before


# --- bad input: quota ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("resource", "value", "says"),
    [
        ("cpu", "-1", "is negative"),
        ("cpu", "NaN", "is not a quantity"),
        ("memory", "1e309", "is not a quantity"),
        ("gpu", "10Pi", "more than the largest grant, 2147483647 GPUs"),
    ],
)
def test_bad_quantities_in_a_change_are_named_and_nothing_changes(project, owner, resource, value, says):
    before = snapshot()

    response = as_(owner).put("/api/v1/projects/ads/quota/reserved/", {**GRANT, resource: value}, format="json")

    assert says in fields(response)[resource]
    assert snapshot() == before


def test_a_change_names_the_missing_resources_and_an_unknown_tier(project, owner):
    before = snapshot()

    partial = as_(owner).put("/api/v1/projects/ads/quota/reserved/", {"cpu": "2"}, format="json")
    gold = as_(owner).put("/api/v1/projects/ads/quota/gold/", GRANT, format="json")

    assert set(fields(partial)) == {"memory", "gpu", "pods"}
    assert fields(gold) == {"tier": "'gold' is not a tier; use one of reserved, ondemand, preemptible."}
    assert snapshot() == before


def test_a_decrease_below_usage_is_refused_with_the_numbers(project, owner, admin_user, caches):
    change_quota(project, "ondemand", QuotaInput(cpu="16", memory="16Gi", pods="10"), actor=admin_user)
    fill(caches, HOST, workload_cr("ranker", replicas=4, cpu="2", memory="1Gi"))
    before = snapshot()

    response = as_(owner).put(
        "/api/v1/projects/ads/quota/ondemand/", {"cpu": "4", "memory": "16Gi", "gpu": "0", "pods": "2"}, format="json"
    )

    found = fields(response)
    assert set(found) == {"cpu", "pods"}
    assert found["cpu"].startswith("OnDemand cpu: the new grant of 4 is ")
    assert "the project's workloads already request" in found["cpu"]
    assert "the new grant of 2 is 2 below the 4" in found["pods"]
    assert snapshot() == before


def test_a_second_request_in_a_tier_is_a_409_naming_the_first(project, owner, pending):
    before = snapshot()

    response = as_(owner).put("/api/v1/projects/ads/quota/reserved/", {**GRANT, "cpu": "50"}, format="json")

    assert f"#{pending.pk}" in fields(response, 409)["tier"]
    assert snapshot() == before


def test_an_archived_project_refuses_changes_with_409(project, owner):
    as_(owner).post("/api/v1/projects/ads/archive/")
    before = snapshot()

    quota = as_(owner).put("/api/v1/projects/ads/quota/ondemand/", GRANT, format="json")
    member = as_(owner).put("/api/v1/projects/ads/members/user/vic/", {"role": "owner"}, format="json")
    edit = as_(owner).patch("/api/v1/projects/ads/", {"team": "x"}, format="json")

    for response in (quota, member, edit):
        assert "archived" in refused(response, 409)["message"]
    assert snapshot() == before


def test_archiving_is_refused_while_workloads_remain(project, owner, caches):
    fill(caches, HOST, workload_cr("ranker"))
    before = snapshot()

    response = as_(owner).post("/api/v1/projects/ads/archive/")

    assert "PinApp/ranker" in refused(response, 409)["message"]
    assert snapshot() == before


def test_a_forced_decrease_needs_a_reason_and_the_previews_token(project, admin_user):
    change_quota(project, "ondemand", QuotaInput(cpu="16"), actor=admin_user)
    url = "/api/v1/projects/ads/quota/ondemand/forced-decrease/"
    before = snapshot()

    blind = as_(admin_user).post(url, {**NONE, "reason": " ", "confirm": ""}, format="json")
    forged = as_(admin_user).post(url, {**NONE, "reason": "reclaim", "confirm": "0" * 20}, format="json")
    raising = as_(admin_user).post(f"{url}preview/", {**NONE, "cpu": "32"}, format="json")

    assert set(fields(blind)) == {"reason", "confirm"}
    assert "preview again" in fields(forged, 409)["confirm"]
    assert "only decreases" in fields(raising)["cpu"]
    assert snapshot() == before


# --- bad input: members -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "field", "says"),
    [
        ("user/nobody", {"role": "viewer"}, "name", "There is no user named 'nobody'."),
        ("group/no-group", {"role": "viewer"}, "name", "There is no group named 'no-group'."),
        ("robot/dev2", {"role": "viewer"}, "kind", "'robot' is not a member kind; use user or group."),
        ("user/dev2", {"role": "boss"}, "role", "'boss' is not a role; use one of owner, developer, viewer."),
    ],
)
def test_an_unknown_user_group_kind_or_role_is_named_and_nothing_changes(
    project, owner, other_user, path, body, field, says
):
    before = snapshot()

    response = as_(owner).put(f"/api/v1/projects/ads/members/{path}/", body, format="json")

    assert fields(response)[field] == says
    assert snapshot() == before


def test_the_last_owner_can_be_neither_demoted_nor_removed(project, owner):
    before = snapshot()

    demoted = as_(owner).put("/api/v1/projects/ads/members/user/dev1/", {"role": "viewer"}, format="json")
    removed = as_(owner).delete("/api/v1/projects/ads/members/user/dev1/")

    assert "last owner" in fields(demoted, 409)["role"]
    assert "last owner" in fields(removed, 409)["name"]
    assert snapshot() == before


def test_two_owners_removing_each_other_leave_one(project, owner, developer):
    set_member(project, MemberInput("user", developer.username, "owner"), actor=owner)

    first = as_(owner).delete("/api/v1/projects/ads/members/user/devi/")
    second = as_(developer).delete("/api/v1/projects/ads/members/user/dev1/")

    assert first.status_code == 204
    refused(second, 404)  # devi is no longer a member
    assert list(Membership.objects.filter(project=project, role="owner").values_list("user__username", flat=True)) == [
        "dev1"
    ]


@pytest.fixture
def committed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Transactions really commit here: keep the provisioning they queue away from the fake clusters."""
    monkeypatch.setattr("projects.provisioning.project_changed", lambda project: None)


@pytest.mark.django_db(transaction=True)
def test_two_owners_removing_each_other_at_once_leave_one(committed, project, owner, developer):
    if os.environ.get("PINCONSOLE_TEST_LIGHT") == "1":  # refused in CI: there the harness runs PostgreSQL
        pytest.skip("needs PostgreSQL's row locks (PINCONSOLE_TEST_LIGHT runs on SQLite)")
    assert connection.vendor == "postgresql", "the harness provides PostgreSQL"
    set_member(project, MemberInput("user", developer.username, "owner"), actor=owner)
    start = threading.Barrier(2)
    statuses: dict[str, int] = {}

    def remove(actor: Any, other: str) -> None:
        try:
            start.wait()
            statuses[actor.username] = as_(actor).delete(f"/api/v1/projects/ads/members/user/{other}/").status_code
        finally:
            connection.close()

    threads = [
        threading.Thread(target=remove, args=(owner, "devi")),
        threading.Thread(target=remove, args=(developer, "dev1")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert sorted(statuses.values()) == [204, 404]
    assert Membership.objects.filter(project=project, role="owner").count() == 1


# --- bad input: project edits and quota requests ------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"name": "renamed"}, "name", "name cannot be changed here"),
        ({"team": " "}, "team", "Give the team."),
        ({"display_name": "d" * 121}, "display_name", "Use at most 120 characters; this has 121."),
        (
            {"pod_security": "open"},
            "pod_security",
            "'open' is not a level; use one of privileged, baseline, restricted.",
        ),
    ],
)
def test_bad_project_edits_are_named_and_nothing_changes(project, admin_user, body, field, says):
    before = snapshot()

    response = as_(admin_user).patch("/api/v1/projects/ads/", body, format="json")

    assert says in fields(response)[field]
    assert snapshot() == before


def test_a_refused_part_of_an_edit_leaves_the_rest_unchanged(project, admin_user):
    before = snapshot()

    response = as_(admin_user).patch(
        "/api/v1/projects/ads/", {"description": "new", "pod_security": "open"}, format="json"
    )

    assert set(fields(response)) == {"pod_security"}
    assert snapshot() == before


def test_a_rejection_needs_a_reason(project, pending, admin_user):
    before = snapshot()

    blank = as_(admin_user).post(f"/api/v1/quota-requests/{pending.pk}/reject/", {"reason": "  "}, format="json")
    missing = as_(admin_user).post(f"/api/v1/quota-requests/{pending.pk}/reject/", {}, format="json")

    assert fields(blank) == {"reason": "Say why the request is rejected; the project's owners will read it."}
    assert set(fields(missing)) == {"reason"}
    assert snapshot() == before


def test_a_decided_request_cannot_be_decided_again(project, pending, admin_user):
    as_(admin_user).post(f"/api/v1/quota-requests/{pending.pk}/reject/", {"reason": "no"}, format="json")
    before = snapshot()

    again = as_(admin_user).post(f"/api/v1/quota-requests/{pending.pk}/approve/", {}, format="json")

    assert "already rejected" in refused(again, 409)["message"]
    assert snapshot() == before


def test_approval_beyond_what_the_pools_hold_now_is_a_409_with_the_numbers(project, other_project, pending, admin_user):
    change_quota(other_project, "reserved", QuotaInput(cpu="30"), actor=admin_user)  # 64 - 30 = 34 left
    before = snapshot()

    response = as_(admin_user).post(f"/api/v1/quota-requests/{pending.pk}/approve/", {}, format="json")

    assert fields(response, 409)["cpu"].startswith(
        "Reserved cpu: the increase of 40 is 6 more than the 34 left in the region's Reserved pools"
    )
    assert snapshot() == before


@pytest.mark.parametrize("url", ["/api/v1/projects/?state=gone", "/api/v1/quota-requests/?state=gone"])
def test_an_unknown_state_filter_is_named(project, owner, url):
    assert "'gone' is not a" in fields(as_(owner).get(url))["state"]


# --- a NUL character (PostgreSQL refuses it in text and in queries) -------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "field"),
    [
        ("get", "/api/v1/projects/a%00b/", None, 404, None),
        ("get", "/api/v1/projects/a%00b/members/", None, 404, None),
        ("put", "/api/v1/projects/ads/members/user/de%00vi/", {"role": "viewer"}, 400, "name"),
        ("put", "/api/v1/projects/ads/members/group/ops%00/", {"role": "viewer"}, 400, "name"),
        ("delete", "/api/v1/projects/ads/members/user/de%00vi/", None, 204, None),
        ("patch", "/api/v1/projects/ads/", {"description": "a\x00b"}, 400, "description"),
    ],
    ids=["project", "members", "put-user", "put-group", "delete", "patch"],
)
def test_a_nul_in_a_name_or_text_is_a_refusal_never_a_500(project, owner, method, path, body, status, field):
    client = as_(owner)
    client.raise_request_exception = False
    before = snapshot()

    response = getattr(client, method)(path, body, format="json") if body else getattr(client, method)(path)

    assert response.status_code == status
    if status >= 400:
        assert field is None or field in fields(response, status)
    assert snapshot() == before


def test_a_nul_in_the_basics_is_refused_by_the_service(project, owner):
    from projects.lifecycle import update_project
    from projects.onboarding import ProjectDraft, check_basics

    with pytest.raises(Invalid) as draft:
        check_basics(ProjectDraft(name="search", team="t\x00", cost_center="c", description="d\x00"))
    with pytest.raises(Invalid) as edit:
        update_project(project, {"display_name": "x\x00"}, actor=owner)

    assert {f.path: f.message for f in draft.value.fields} == {
        "team": "Remove the NUL character (\\x00).",
        "description": "Remove the NUL character (\\x00).",
    }
    assert [f.path for f in edit.value.fields] == ["display_name"]


def test_a_nul_in_the_request_queues_project_filter_lists_nothing(project, pending, admin_user):
    client = as_(admin_user)
    client.raise_request_exception = False

    response = client.get("/api/v1/quota-requests/?project=a%00b")

    assert response.status_code == 200 and response.json()["results"] == []


def test_a_huge_member_list_is_refused_at_once_without_a_lookup_per_member(
    region, caches, user, django_assert_max_num_queries
):
    from projects.members import MAX_MEMBERS

    many = [{"kind": "user", "name": f"u{i}", "role": "viewer"} for i in range(MAX_MEMBERS + 1)]
    before = snapshot()

    with django_assert_max_num_queries(20):
        response = as_(user).post("/api/v1/projects/", {**CREATE, "members": many}, format="json")

    assert fields(response) == {
        "members": f"List at most {MAX_MEMBERS} users or groups; this lists {MAX_MEMBERS + 1}. Add a team as an "
        "OIDC group instead."
    }
    assert len(response.content) < 2000
    assert snapshot() == before


def test_a_project_at_the_member_limit_takes_no_more_but_changes_roles(project, owner, django_user_model, monkeypatch):
    limit = Membership.objects.filter(project=project).count()
    extra = django_user_model.objects.create_user("extra", "extra@example.com", "pw-extra-Secret!")
    monkeypatch.setattr("projects.members.MAX_MEMBERS", limit)

    refused_ = as_(owner).put("/api/v1/projects/ads/members/user/extra/", {"role": "viewer"}, format="json")
    changed = as_(owner).put("/api/v1/projects/ads/members/user/vic/", {"role": "developer"}, format="json")

    assert fields(refused_, 409) == {
        "name": f"ads has {limit} members, the most a project may have; remove one or add a team as an OIDC group."
    }
    assert changed.status_code == 200
    assert not Membership.objects.filter(user=extra).exists()


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("put", "/api/v1/projects/ads/quota/reserved/", {**GRANT, "reason": "x" * 2001}),
        ("post", "/api/v1/quota-requests/{r}/approve/", {"reason": "x" * 2001}),
        ("post", "/api/v1/quota-requests/{r}/reject/", {"reason": "x" * 2001}),
        (
            "post",
            "/api/v1/projects/ads/quota/reserved/forced-decrease/",
            {**NONE, "reason": "x" * 2001, "confirm": "t"},
        ),
    ],
    ids=["change", "approve", "reject", "force"],
)
def test_a_reason_longer_than_the_limit_is_refused_and_nothing_changes(
    project, pending, admin_user, method, path, body
):
    from projects.quota import REASON_MAX

    before = snapshot()

    response = getattr(as_(admin_user), method)(path.format(r=pending.pk), body, format="json")

    assert fields(response)["reason"] == f"Use at most {REASON_MAX} characters; this has 2001."
    assert snapshot() == before


@pytest.mark.parametrize("value", ["1" * 5000, "0." + "1" * 5000, "1" * 65], ids=["5000-digits", "5000-decimals", "65"])
def test_a_quantity_too_long_to_be_one_is_refused_by_path_never_a_500(project, owner, value):
    client = as_(owner)
    client.raise_request_exception = False
    before = snapshot()

    response = client.put("/api/v1/projects/ads/quota/reserved/", {**GRANT, "cpu": value}, format="json")
    onboarding = client.post("/api/v1/projects/", {**CREATE, "quotas": {"ondemand": {"pods": value}}}, format="json")

    assert fields(response)["cpu"].endswith("is not a quantity: 64 characters at most; for example 8 or 500m.")
    assert "64 characters at most" in fields(onboarding)["quotas.ondemand.pods"]
    assert len(response.content) < 1000
    assert snapshot() == before


# --- the input contract: JSON types, tier names, authorization first ---------------------------------------


@pytest.mark.parametrize("body", [{"description": 5}, {"team": True}, {"display_name": ["x"]}, {"cost_center": {}}])
def test_a_project_edit_of_another_json_type_is_refused_by_field(project, owner, body):
    before = snapshot()

    response = as_(owner).patch("/api/v1/projects/ads/", body, format="json")

    assert fields(response) == {next(iter(body)): "must be a string"}
    assert snapshot() == before


def test_an_unknown_field_of_an_edit_is_named_with_what_is_editable(project, owner):
    before = snapshot()

    response = as_(owner).patch("/api/v1/projects/ads/", {"name": "renamed", "colour": "red"}, format="json")

    found = fields(response)
    assert set(found) == {"name", "colour"}
    assert found["colour"] == (
        "colour cannot be changed here; editable: display_name, team, cost_center, description, pod_security."
    )
    assert snapshot() == before


@pytest.mark.parametrize("url", ["/api/v1/projects/ads/quota/ondemand/", "/api/v1/projects/ads/quota/reserved/"])
def test_quantities_as_json_numbers_are_refused_by_field_as_the_schema_says(project, owner, url):
    before = snapshot()

    response = as_(owner).put(url, {"cpu": 1, "memory": 1.5, "gpu": 0, "pods": True}, format="json")

    found = fields(response)
    assert set(found) == {"cpu", "memory", "gpu", "pods"}
    assert found["cpu"] == "A JSON number is not a quantity; send a string, for example 8 or 500m."
    assert found["pods"].startswith("A JSON boolean is not a quantity")
    assert snapshot() == before


def test_quantities_of_other_json_types_are_refused_at_onboarding_and_in_previews(region, caches, user, admin_user):
    project_body = {**CREATE, "quotas": {"ondemand": {"cpu": 2, "memory": ["1Gi"]}}}
    before = snapshot()

    onboarding = as_(user).post("/api/v1/projects/", project_body, format="json")

    assert set(fields(onboarding)) == {"quotas.ondemand.cpu", "quotas.ondemand.memory"}
    assert "A JSON array is not a quantity" in fields(onboarding)["quotas.ondemand.memory"]
    assert snapshot() == before


def test_the_schema_says_quantities_are_strings(project, owner):
    schema = as_(owner).get("/api/schema/?format=json").json()

    grant = schema["components"]["schemas"]["QuotaChangeInputRequest"]["properties"]
    assert {grant[name]["type"] for name in ("cpu", "memory", "gpu", "pods")} == {"string"}


@pytest.mark.parametrize("tier", ["Reserved", "RESERVED", "OnDemand", "reserved ", "gold"])
def test_a_tier_is_named_exactly_as_the_schema_enumerates_it(project, owner, tier):
    before = snapshot()

    response = as_(owner).put(f"/api/v1/projects/ads/quota/{tier}/", GRANT, format="json")

    assert fields(response) == {"tier": f"{tier!r} is not a tier; use one of reserved, ondemand, preemptible."}
    assert snapshot() == before


def test_the_exact_tier_labels_are_taken(project, owner):
    for tier in ("reserved", "ondemand", "preemptible"):
        response = as_(owner).put(f"/api/v1/projects/ads/quota/{tier}/", GRANT, format="json")
        assert response.status_code in (200, 202), response.json()


def test_onboarding_takes_the_same_tier_names_as_the_quota_path(region, caches, user):
    before = snapshot()

    response = as_(user).post("/api/v1/projects/", {**CREATE, "quotas": {"Reserved": {"cpu": "1"}}}, format="json")

    assert fields(response) == {
        "quotas.Reserved": "'Reserved' is not a tier; use one of reserved, ondemand, preemptible."
    }
    assert snapshot() == before


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("patch", "/api/v1/projects/ads/", {"description": 5}),
        ("patch", "/api/v1/projects/ads/", {"colour": "red"}),
        ("put", "/api/v1/projects/ads/quota/ondemand/", {"cpu": "1", "unknown": 1}),
        ("put", "/api/v1/projects/ads/quota/gold/", {"cpu": []}),
        ("put", "/api/v1/projects/ads/members/user/vic/", {"role": "viewer", "x": 1}),
        ("put", "/api/v1/projects/ads/members/user/vic/", {"role": 5}),
        ("post", "/api/v1/projects/ads/quota/ondemand/forced-decrease/", {"cpu": 5}),
    ],
    ids=["edit-type", "edit-unknown", "quota-unknown", "quota-tier", "member-unknown", "member-type", "force"],
)
def test_a_viewer_with_a_bad_body_is_refused_for_the_role_first(project, viewer, method, path, body):
    before = snapshot()

    response = getattr(as_(viewer), method)(path, body, format="json")

    refused(response, 403)
    assert snapshot() == before


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_an_owner_deciding_a_request_with_a_bad_body_is_refused_for_the_role_first(project, pending, owner, decision):
    before = snapshot()

    response = as_(owner).post(f"/api/v1/quota-requests/{pending.pk}/{decision}/", {"reason": 5, "x": 1}, format="json")

    refused(response, 403)
    assert snapshot() == before
