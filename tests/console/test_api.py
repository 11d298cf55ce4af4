import pytest

from accounts.models import ApiToken
from base.models import AuditEvent

pytestmark = pytest.mark.django_db


def _error(response):
    body = response.json()
    assert set(body) == {"error"}
    assert {"status", "code", "message", "fields", "request_id"} <= set(body["error"])
    assert body["error"]["status"] == response.status_code
    assert body["error"]["request_id"] == response["X-Request-ID"]
    return body["error"]


def test_unauthenticated_api_call_gets_401_with_the_json_error_body(api_client):
    response = api_client.get("/api/v1/me/")

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert _error(response)["code"] == "not_authenticated"


def test_api_root_lists_the_endpoints(api_client):
    body = api_client.get("/api/v1/").json()

    assert body["version"] == "v1"
    assert body["schema"].endswith("/api/schema/")


def test_unknown_api_path_is_a_json_404(api_client):
    response = api_client.get("/api/v1/no-such-thing/")

    assert response.status_code == 404
    assert _error(response)["code"] == "not_found"


def test_token_lifecycle_through_the_api(api_client, user):
    api_client.force_authenticate(user)
    created = api_client.post("/api/v1/tokens/", {"name": "laptop", "days": 30}, format="json")
    assert created.status_code == 201
    raw = created.json()["token"]
    api_client.force_authenticate(None)

    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    me = api_client.get("/api/v1/me/")
    assert me.status_code == 200 and me.json()["username"] == "dev1"
    assert "token" not in api_client.get("/api/v1/tokens/").json()["results"][0]

    token_id = created.json()["id"]
    assert api_client.delete(f"/api/v1/tokens/{token_id}/").status_code == 204
    refused = api_client.get("/api/v1/me/")
    assert refused.status_code == 401
    assert "revoked" in _error(refused)["message"]
    assert list(AuditEvent.objects.filter(target_kind="ApiToken").values_list("action", flat=True)) == [
        "token.revoke",
        "token.create",
    ]


def test_token_secret_is_stored_only_as_a_digest(api_client, user):
    api_client.force_authenticate(user)
    raw = api_client.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()["token"]

    stored = ApiToken.objects.get(name="ci")
    assert raw not in (stored.digest, stored.key_id) and len(stored.digest) == 64


def test_invalid_token_payload_names_the_field(api_client, user):
    api_client.force_authenticate(user)
    response = api_client.post("/api/v1/tokens/", {"name": "", "days": 9999}, format="json")

    assert response.status_code == 400
    paths = {f["path"] for f in _error(response)["fields"]}
    assert paths == {"name", "days"}
    assert not ApiToken.objects.exists()


def test_duplicate_token_name_is_a_409_naming_the_field(api_client, user):
    api_client.force_authenticate(user)
    api_client.post("/api/v1/tokens/", {"name": "dup"}, format="json")
    response = api_client.post("/api/v1/tokens/", {"name": "dup"}, format="json")

    assert response.status_code == 409
    assert _error(response)["fields"] == [{"path": "name", "message": "You already have a token named 'dup'."}]


def test_users_cannot_see_or_revoke_each_others_tokens(api_client, user, other_user):
    api_client.force_authenticate(other_user)
    theirs = api_client.post("/api/v1/tokens/", {"name": "theirs"}, format="json").json()["id"]

    api_client.force_authenticate(user)
    assert api_client.get("/api/v1/tokens/").json()["count"] == 0
    assert api_client.delete(f"/api/v1/tokens/{theirs}/").status_code == 404
    assert ApiToken.objects.get(pk=theirs).revoked_at is None


def test_non_admin_gets_403_on_the_audit_api(api_client, user):
    api_client.force_authenticate(user)
    response = api_client.get("/api/v1/audit/")

    assert response.status_code == 403
    assert _error(response)["code"] == "permission_denied"


def test_admin_reads_and_filters_the_audit_api(api_client, admin_user, user):
    from base import audit

    audit.record("cluster.update", actor=admin_user, target_kind="Cluster", target_name="member-a", cluster="member-a")
    audit.record("token.create", actor=user, target_kind="ApiToken", target_name="x")
    api_client.force_authenticate(admin_user)

    body = api_client.get("/api/v1/audit/?action=cluster").json()

    assert [e["target_name"] for e in body["results"]] == ["member-a"]
    assert api_client.post("/api/v1/audit/", {}, format="json").status_code == 405


def test_openapi_schema_and_docs_are_served(client):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/v1/clusters/" in schema.content
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"cdn" not in docs.content.lower()
