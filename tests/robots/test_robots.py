"""Robot accounts through the API and the project page: who may manage them (owners), what their token reaches
(its project only: elsewhere 404; its scopes only: else 403) and that it dies at once when revoked, rotated or
expired. The deploy against the real host is ``test_robots_live``."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from pinconsole_sdk.cli import main
from rest_framework.test import APIClient

from accounts.models import ApiToken
from base.models import AuditEvent
from robots.models import Robot
from robots.services import create_robot

pytestmark = pytest.mark.django_db
URL = "/api/v1/projects/ads/robots/"


def bearer(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def robot(project, owner, scopes=("read", "write"), name="deploy-bot") -> str:
    return create_robot(project, name=name, scopes=list(scopes), days=7, actor=owner)[2]


def test_an_owner_creates_a_robot_whose_secret_is_shown_once_and_audited(project, owner):
    created = as_user(owner).post(URL, {"name": "deploy-bot", "scopes": ["read", "write"], "days": 5}, format="json")

    assert created.status_code == 201, created.content
    body = created.json()
    assert body["token"].startswith("pct_") and body["username"] == "robot deploy-bot of ads"
    assert body["scopes"] == ["read", "write"] and body["active"]
    listed = as_user(owner).get(URL).json()
    assert [r["name"] for r in listed] == ["deploy-bot"] and "token" not in listed[0]
    row = AuditEvent.objects.get(action="robot.create")
    assert (row.actor_name, row.project_name, row.target_name) == ("dev1", "ads", "deploy-bot")
    assert body["token"] not in str(row.after)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "Deploy Bot", "scopes": ["read"]}, "name"),
        ({"name": "bot", "scopes": ["admin"]}, "scopes"),
        ({"name": "bot", "scopes": []}, "scopes"),
        ({"name": "bot", "scopes": ["read"], "days": 91}, "days"),
    ],
)
def test_a_bad_robot_is_refused_naming_its_field_and_changes_nothing(project, owner, body, field):
    refused = as_user(owner).post(URL, body, format="json")

    assert refused.status_code == 400 and field in str(refused.json())
    assert not Robot.objects.exists() and not AuditEvent.objects.filter(action="robot.create").exists()


def test_only_owners_manage_robots_and_another_tenant_sees_none(project, other_project, developer, other_user):
    assert as_user(developer).post(URL, {"name": "bot", "scopes": ["read"]}, format="json").status_code == 403
    assert as_user(developer).get(URL).status_code == 403
    assert as_user(other_user).post(URL, {"name": "bot", "scopes": ["read"]}, format="json").status_code == 404
    assert not Robot.objects.exists()


def test_a_robot_token_reaches_its_own_project_only(project, other_project, owner):
    raw = robot(project, owner, ("read",))

    assert bearer(raw).get("/api/v1/projects/ads/workloads/").status_code == 200
    assert bearer(raw).get("/api/v1/projects/ml/workloads/").status_code == 404
    assert bearer(raw).get("/api/v1/projects/").status_code == 404
    assert bearer(raw).get("/api/v1/me/").status_code == 404
    assert bearer(raw).get("/api/v1/version/").status_code == 200


def test_a_robot_without_write_is_refused_writes_and_cannot_manage_robots(project, owner):
    raw = robot(project, owner, ("read", "logs"))

    refused = bearer(raw).post("/api/v1/projects/ads/workloads/", {"kind": "PinApp"}, format="json")

    assert refused.status_code == 403 and "no write scope" in refused.json()["error"]["message"]
    writer = robot(project, owner, ("read", "write"), name="writer")
    assert bearer(writer).post(URL, {"name": "x", "scopes": ["read"]}, format="json").status_code == 403


def test_a_robot_without_read_cannot_list(project, owner):
    raw = robot(project, owner, ("write",))

    assert bearer(raw).get("/api/v1/projects/ads/workloads/").status_code == 403


def test_revoking_kills_the_token_at_once_and_is_audited(project, owner):
    raw = robot(project, owner)
    assert bearer(raw).get("/api/v1/projects/ads/workloads/").status_code == 200

    assert as_user(owner).delete(f"{URL}deploy-bot/").status_code == 204

    assert bearer(raw).get("/api/v1/projects/ads/workloads/").status_code == 401
    assert not project.memberships.filter(user__robot__name="deploy-bot").exists()
    assert AuditEvent.objects.get(action="robot.revoke").target_name == "deploy-bot"
    assert as_user(owner).get(f"{URL}deploy-bot/").json()["active"] is False


def test_rotating_gives_a_new_token_and_kills_the_old(project, owner):
    old = robot(project, owner)

    rotated = as_user(owner).post(f"{URL}deploy-bot/rotate/", {}, format="json")

    assert rotated.status_code == 200 and rotated.json()["token"] != old
    assert bearer(old).get("/api/v1/projects/ads/workloads/").status_code == 401
    assert bearer(rotated.json()["token"]).get("/api/v1/projects/ads/workloads/").status_code == 200


def test_an_expired_robot_token_is_refused(project, owner):
    raw = robot(project, owner)
    ApiToken.objects.filter(project="ads").update(expires_at=timezone.now() - timedelta(seconds=1))

    assert bearer(raw).get("/api/v1/projects/ads/workloads/").status_code == 401


def test_the_project_page_lists_creates_shows_the_secret_once_and_revokes(client, project, owner):
    client.force_login(owner)
    page = client.get("/projects/ads/")
    assert 'hx-get="/projects/ads/robots/"' in page.content.decode()

    created = client.post(
        "/projects/ads/robots/", {"name": "ci", "scopes": ["read", "write"], "days": "3"}, HTTP_HX_REQUEST="true"
    )

    text = created.content.decode()
    raw = Robot.objects.get(name="ci") and text.split('<code class="user-select-all">')[1].split("</code>")[0]
    assert raw.startswith("pct_") and 'data-robot="ci"' in text
    assert raw not in client.get("/projects/ads/robots/", HTTP_HX_REQUEST="true").content.decode()
    revoked = client.post("/projects/ads/robots/ci/revoke/", HTTP_HX_REQUEST="true").content.decode()
    assert "revoked" in revoked and bearer(raw).get("/api/v1/projects/ads/workloads/").status_code == 401


def test_the_section_refuses_a_developer_and_names_a_bad_field(client, project, owner, developer):
    client.force_login(developer)
    assert client.get("/projects/ads/robots/", HTTP_HX_REQUEST="true").status_code == 403
    client.force_login(owner)

    bad = client.post(
        "/projects/ads/robots/", {"name": "ci", "scopes": ["read"], "days": "400"}, HTTP_HX_REQUEST="true"
    )

    assert bad.status_code == 400 and "between 1 and 90 days" in bad.content.decode() and not Robot.objects.exists()


def test_a_robot_is_rate_limited_like_a_user_and_apart_from_its_creator(project, owner, settings):
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], "api-read": "3/min"}
    settings.REST_FRAMEWORK = rest
    raw = robot(project, owner)
    url = "/api/v1/projects/ads/workloads/"

    answers = [bearer(raw).get(url).status_code for _ in range(4)]

    assert answers == [200, 200, 200, 429]
    assert as_user(owner).get(url).status_code == 200  # counted per robot, not per the owner who made it


def test_login_refuses_a_token_file_that_holds_no_token(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PINCONSOLE_CONFIG", str(tmp_path / "config.toml"))
    empty = tmp_path / "empty"
    empty.write_text("\n")

    out, err = io.StringIO(), io.StringIO()
    code = main(["login", "--url", "http://127.0.0.1:9", "--token-file", str(empty)], out=out, err=err)

    assert code == 2 and "empty" in err.getvalue() and not (tmp_path / "config.toml").exists()
