"""API tokens: every token expires (a default and a maximum), a token cannot create tokens, a read-only scope
refuses writes on the API (and shells: tests/debugging/test_tokens.py); open-ended tokens get an expiry."""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module

import pytest
from django.apps import apps
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import create_api_token
from base.models import AuditEvent

pytestmark = pytest.mark.django_db


def bearer(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def test_a_token_expires_after_the_default_and_never_past_the_maximum(user, settings):
    settings.API_TOKEN_DEFAULT_DAYS, settings.API_TOKEN_MAX_DAYS = 90, 365
    token, _ = create_api_token(user=user, name="laptop", days=None)
    client = APIClient()
    client.force_login(user)

    too_long = client.post("/api/v1/tokens/", {"name": "forever", "days": 366}, format="json")
    page = client.get("/tokens/").content.decode()

    assert timedelta(days=89, hours=23) < token.expires_at - timezone.now() <= timedelta(days=90)
    assert too_long.status_code == 400 and [f["path"] for f in too_long.json()["error"]["fields"]] == ["days"]
    assert "empty: 90; at most 365" in page and not ApiToken.objects.filter(name="forever").exists()


def test_a_token_cannot_create_tokens_even_of_its_own_scope(user):
    _, raw = create_api_token(user=user, name="ci", days=1)

    response = bearer(raw).post("/api/v1/tokens/", {"name": "successor"}, format="json")

    assert response.status_code == 403 and "cannot create tokens" in response.json()["error"]["message"]
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["ci"]
    assert AuditEvent.objects.filter(action="token.create").count() == 1


def test_a_session_creates_a_read_token_that_reads_and_never_writes(user):
    client = APIClient()
    client.force_login(user)
    created = client.post("/api/v1/tokens/", {"name": "dashboards", "scope": "read"}, format="json").json()
    reader = bearer(created["token"])

    listed = reader.get("/api/v1/tokens/")
    written = reader.post("/api/v1/projects/", {"name": "sneaky", "team": "t", "cost_center": "c"}, format="json")
    revoked = reader.delete(f"/api/v1/tokens/{created['id']}/")

    assert created["scope"] == "read" and listed.status_code == 200
    assert written.status_code == revoked.status_code == 403
    assert "read-only" in written.json()["error"]["message"]
    assert ApiToken.objects.get(pk=created["id"]).is_active
    event = AuditEvent.objects.get(action="token.create")
    assert event.after["scope"] == "read"


def test_an_unknown_scope_is_a_400_naming_it(user):
    client = APIClient()
    client.force_login(user)

    response = client.post("/api/v1/tokens/", {"name": "x", "scope": "admin"}, format="json")

    assert response.status_code == 400 and response.json()["error"]["fields"][0]["path"] == "scope"


def test_open_ended_tokens_from_before_get_the_default_lifetime(user, settings):
    settings.API_TOKEN_DEFAULT_DAYS = 30
    old, _ = create_api_token(user=user, name="old", days=5)
    ApiToken.objects.filter(pk=old.pk).update(expires_at=None)

    import_module("accounts.migrations.0004_apitoken_scope").expire_open_ended_tokens(apps, None)

    old.refresh_from_db()
    assert timedelta(days=29) < old.expires_at - timezone.now() <= timedelta(days=30)
