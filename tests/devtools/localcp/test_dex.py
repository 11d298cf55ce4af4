"""dex: the password grant returns an id_token with email and groups."""

from __future__ import annotations

import urllib.error

import pytest

from devtools.localcp.dex import DexServer, decode_jwt_claims

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_password_grant_id_token_has_email_and_groups(dex_server: DexServer) -> None:
    tokens = dex_server.password_grant("admin@example.com", "password")
    claims = decode_jwt_claims(tokens["id_token"])
    assert claims["iss"] == dex_server.issuer
    assert claims["email"] == "admin@example.com"
    assert claims["email_verified"] is True
    assert claims["groups"] == ["platform-admins"]
    assert claims["aud"] == "pinconsole"


def test_wrong_password_is_rejected(dex_server: DexServer) -> None:
    with pytest.raises(urllib.error.HTTPError) as err:
        dex_server.password_grant("dev@example.com", "nope")
    assert err.value.code == 401
