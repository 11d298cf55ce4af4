"""Who may not, on every endpoint of the Projects API: anonymous callers and bad tokens get 401, members
whose role is too low 403, and anyone asking about another tenant's project (or one they were removed
from) 404, never 403; afterwards nothing has changed. Bad input is in ``test_api_bad_input``; the
helpers here are shared with it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import create_api_token, revoke_api_token
from projects.grants import QuotaInput
from projects.members import MemberInput, remove_member, set_member
from projects.models import QuotaRequest
from projects.quota import change_quota
from tests.support.projects_api import CREATE, GRANT, NONE, as_, refused, snapshot

pytestmark = pytest.mark.django_db


def call(client: APIClient, method: str, url: str, body: Any = None) -> Any:
    return getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)


@pytest.fixture
def pending(project, owner) -> QuotaRequest:
    """A pending request in ``ads``."""
    return change_quota(project, "reserved", QuotaInput(cpu="40"), actor=owner).request


@pytest.fixture
def theirs(other_project, other_user) -> QuotaRequest:
    """A pending request in ``ml``, another tenant's project for dev1."""
    return change_quota(other_project, "reserved", QuotaInput(gpu="1"), actor=other_user).request


# (method, path, body): {p} is a project, {r} a quota request in it
ON_A_PROJECT = [
    ("get", "/api/v1/projects/{p}/", None),
    ("patch", "/api/v1/projects/{p}/", {"team": "x"}),
    ("post", "/api/v1/projects/{p}/archive/", None),
    ("get", "/api/v1/projects/{p}/members/", None),
    ("get", "/api/v1/projects/{p}/members/user/vic/", None),
    ("put", "/api/v1/projects/{p}/members/user/vic/", {"role": "owner"}),
    ("delete", "/api/v1/projects/{p}/members/user/vic/", None),
    ("get", "/api/v1/projects/{p}/quota/", None),
    ("put", "/api/v1/projects/{p}/quota/reserved/", GRANT),
    ("post", "/api/v1/projects/{p}/quota/reserved/forced-decrease/preview/", NONE),
    ("post", "/api/v1/projects/{p}/quota/reserved/forced-decrease/", {**NONE, "reason": "x", "confirm": "y"}),
    ("get", "/api/v1/quota-requests/{r}/", None),
    ("post", "/api/v1/quota-requests/{r}/approve/", {}),
    ("post", "/api/v1/quota-requests/{r}/reject/", {"reason": "no"}),
]
EVERY = [
    ("get", "/api/v1/projects/", None),
    ("post", "/api/v1/projects/", CREATE),
    ("get", "/api/v1/quota-requests/", None),
    *ON_A_PROJECT,
]


def ids(cases: list[tuple[str, str, Any]]) -> list[str]:
    return [f"{method.upper()} {path}" for method, path, _ in cases]


# --- who: 401 -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body"), EVERY, ids=ids(EVERY))
def test_anonymous_calls_get_401_and_change_nothing(project, pending, method, path, body):
    before = snapshot()

    response = call(APIClient(), method, path.format(p="ads", r=pending.pk), body)

    assert refused(response, 401)["code"] == "not_authenticated"
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert snapshot() == before


def _forged(user: Any) -> str:
    return "pct_" + "x" * 40


def _expired(user: Any) -> str:
    token, raw = create_api_token(user=user, name="old", days=1)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    return raw


def _revoked(user: Any) -> str:
    token, raw = create_api_token(user=user, name="gone", days=1)
    revoke_api_token(user=user, token_id=token.pk)
    return raw


SAMPLE = [EVERY[0], EVERY[1], ON_A_PROJECT[8], ON_A_PROJECT[12]]


@pytest.mark.parametrize("token", [_forged, _expired, _revoked], ids=["forged", "expired", "revoked"])
@pytest.mark.parametrize(("method", "path", "body"), SAMPLE, ids=ids(SAMPLE))
def test_a_forged_expired_or_revoked_token_gets_401(project, pending, admin_user, token, method, path, body):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token(admin_user)}")
    before = snapshot()

    response = call(client, method, path.format(p="ads", r=pending.pk), body)

    assert refused(response, 401)["code"] == "authentication_failed"
    assert snapshot() == before


# --- who: 404 for what the caller cannot see ------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body"), ON_A_PROJECT, ids=ids(ON_A_PROJECT))
def test_another_tenants_project_is_a_404_never_a_403(project, theirs, owner, method, path, body):
    before = snapshot()

    response = call(as_(owner), method, path.format(p="ml", r=theirs.pk), body)
    absent = call(as_(owner), method, path.format(p="nope", r=999_999), body)

    error = refused(response, 404)
    assert (error["code"], error["message"]) == (refused(absent, 404)["code"], refused(absent, 404)["message"])
    assert snapshot() == before


def test_another_tenants_project_is_not_listed(project, theirs, owner):
    client = as_(owner)

    assert [p["name"] for p in client.get("/api/v1/projects/").json()["results"]] == ["ads"]
    assert client.get("/api/v1/quota-requests/").json()["count"] == 0
    assert client.get("/api/v1/quota-requests/?project=ml").json()["count"] == 0


@pytest.mark.parametrize(("method", "path", "body"), ON_A_PROJECT, ids=ids(ON_A_PROJECT))
def test_a_removed_member_gets_404(project, pending, owner, developer, method, path, body):
    remove_member(project, "user", developer.username, actor=owner)
    before = snapshot()

    response = call(as_(developer), method, path.format(p="ads", r=pending.pk), body)

    refused(response, 404)
    assert snapshot() == before


def test_an_unknown_project_member_or_request_is_a_404(project, owner):
    client = as_(owner)

    refused(client.get("/api/v1/projects/nope/"), 404)
    refused(client.get("/api/v1/projects/ads/members/user/dev2/"), 404)
    refused(client.get("/api/v1/projects/ads/members/robot/dev1/"), 404)
    refused(client.get("/api/v1/quota-requests/999999/"), 404)


# --- who: 403 where the project is visible ----------------------------------------------------------------

OWNERS_ONLY = [ON_A_PROJECT[i] for i in (1, 2, 5, 6, 8)]
ADMINS_ONLY = [
    ("patch", "/api/v1/projects/{p}/", {"pod_security": "privileged"}),
    ("patch", "/api/v1/projects/{p}/", {"description": "x", "pod_security": "privileged"}),
    *ON_A_PROJECT[9:11],
    *ON_A_PROJECT[12:14],
]


@pytest.mark.parametrize("who", ["developer", "viewer"])
@pytest.mark.parametrize(("method", "path", "body"), OWNERS_ONLY + ADMINS_ONLY, ids=ids(OWNERS_ONLY + ADMINS_ONLY))
def test_developers_and_viewers_get_403_for_what_owners_or_admins_do(
    project, pending, request, who, method, path, body
):
    before = snapshot()

    response = call(as_(request.getfixturevalue(who)), method, path.format(p="ads", r=pending.pk), body)

    assert refused(response, 403)["code"] == "permission_denied"
    assert snapshot() == before


@pytest.mark.parametrize(("method", "path", "body"), ADMINS_ONLY, ids=ids(ADMINS_ONLY))
def test_owners_get_403_for_what_only_platform_admins_do(project, pending, owner, method, path, body):
    before = snapshot()

    response = call(as_(owner), method, path.format(p="ads", r=pending.pk), body)

    assert refused(response, 403)["code"] == "permission_denied"
    assert snapshot() == before


def test_a_group_member_loses_access_with_the_group(project, owner, django_user_model):
    outsider = django_user_model.objects.create_user("gus")
    group = Group.objects.create(name="ads-viewers")
    outsider.groups.add(group)
    set_member(project, MemberInput("group", "ads-viewers", "viewer"), actor=owner)
    assert as_(outsider).get("/api/v1/projects/ads/").status_code == 200

    outsider.groups.remove(group)

    refused(as_(outsider).get("/api/v1/projects/ads/"), 404)
