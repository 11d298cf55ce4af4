"""Without OIDC configured the /oidc/ routes are a 404: /oidc/authenticate/ redirected to itself forever (an empty
authorization endpoint is a relative URL), adding a state to an anonymous session at each hop."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/oidc/authenticate/", "/oidc/callback/?state=x&code=y", "/oidc/logout/"])
def test_the_oidc_routes_are_a_404_while_oidc_is_off(client, settings, path):
    settings.OIDC_ENABLED = False

    response = client.get(path)

    assert response.status_code == 404 and not client.session.get("oidc_states")


def test_with_oidc_on_authenticate_sends_the_browser_to_the_issuer(client, settings):
    settings.OIDC_ENABLED = True
    settings.OIDC_RP_CLIENT_ID = "pinconsole"
    settings.OIDC_OP_AUTHORIZATION_ENDPOINT = "https://issuer.example/auth"

    response = client.get("/oidc/authenticate/")

    assert response.status_code == 302 and response["Location"].startswith("https://issuer.example/auth?")
