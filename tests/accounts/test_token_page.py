"""The API token page: post/redirect/get around a secret shown once.

Creating a token redirects to the token page, which shows the new secret once (kept in the session until then)
and is never stored by the browser (``Cache-Control: no-store``); reloading it neither shows the secret again
nor creates a second token. Invalid input is answered 400 with the message beside the field."""

from __future__ import annotations

import html
import re

import pytest

from accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return html.unescape(response.content.decode())


def secret_in(response) -> str | None:
    found = re.search(r'id="new-token" readonly value="([^"]+)"', response.content.decode())
    return found.group(1) if found else None


def test_creating_redirects_and_the_secret_is_shown_once_never_stored(user_client, user):
    created = user_client.post("/tokens/", {"name": "laptop", "days": "30", "scope": "read"})
    shown = user_client.get(created["Location"])
    reloaded = user_client.get(created["Location"])

    assert created.status_code == 302 and created["Location"] == "/tokens/"
    assert secret_in(shown) and "Copy your new token now." in text(shown)
    assert "no-store" in shown["Cache-Control"] and "no-store" in created["Cache-Control"]
    assert secret_in(reloaded) is None and "Copy your new token now." not in text(reloaded)
    assert list(user.api_tokens.values_list("name", "scope")) == [("laptop", "read")]


def test_the_secret_shown_is_the_token_that_was_created(user_client, user, api_client):
    shown = user_client.get(user_client.post("/tokens/", {"name": "ci"})["Location"])

    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret_in(shown)}")
    assert api_client.get("/api/v1/tokens/").json()["results"][0]["name"] == "ci"


def test_another_session_never_sees_the_secret(client, user):
    client.force_login(user)
    client.post("/tokens/", {"name": "laptop"})
    client.logout()
    client.force_login(user)  # a new session of the same user, e.g. another browser

    assert secret_in(client.get("/tokens/")) is None


@pytest.mark.parametrize(
    ("data", "field"),
    [({"name": ""}, "name"), ({"name": "x", "days": "0"}, "days"), ({"name": "x", "days": "²"}, "days")],
)
def test_invalid_input_is_a_400_with_the_message_beside_the_field(user_client, data, field):
    response = user_client.post("/tokens/", data)

    assert response.status_code == 400
    assert re.search(rf'name="{field}"[^>]*is-invalid|is-invalid[^>]*name="{field}"', response.content.decode())
    assert "no-store" in response["Cache-Control"]
    assert not ApiToken.objects.exists()
