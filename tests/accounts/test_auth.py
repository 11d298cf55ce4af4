import pytest
from django.test import override_settings

from base.models import AuditEvent

pytestmark = pytest.mark.django_db


def test_dev_login_signs_in_when_the_dev_setting_is_on(client, user):
    response = client.post("/login/", {"username": "dev1", "password": "pw-dev1-Secret!"})

    assert response.status_code == 302
    assert client.get("/").status_code == 200
    assert AuditEvent.objects.filter(action="user.login", actor=user).exists()


@override_settings(DEV_LOGIN_ENABLED=False, AUTHENTICATION_BACKENDS=["accounts.oidc.PortalOIDCBackend"])
def test_dev_login_is_refused_when_the_dev_setting_is_off(client, user):
    page = client.get("/login/")
    response = client.post("/login/", {"username": "dev1", "password": "pw-dev1-Secret!"})

    assert b'name="password"' not in page.content
    assert response.status_code == 403
    assert client.get("/").status_code == 302  # still anonymous: redirected to sign in
    assert not AuditEvent.objects.filter(action="user.login").exists()


def test_wrong_password_is_an_inline_error_and_no_session(client, user):
    response = client.post("/login/", {"username": "dev1", "password": "nope"})

    assert response.status_code == 200
    assert b"correct username and password" in response.content
    assert "_auth_user_id" not in client.session


def test_login_ignores_an_offsite_next(client, user):
    response = client.post("/login/?next=https://evil.example/", {"username": "dev1", "password": "pw-dev1-Secret!"})

    assert response.status_code == 302
    assert response["Location"] == "/"


def test_logout_requires_post_and_ends_the_session(user_client, user):
    assert user_client.get("/logout/").status_code == 405

    response = user_client.post("/logout/")

    assert response.status_code == 302
    assert user_client.get("/").status_code == 302
    assert AuditEvent.objects.filter(action="user.logout", actor=user).exists()


def test_anonymous_pages_redirect_to_sign_in(client):
    for path in ("/", "/projects/", "/workloads/", "/workloads/catalog/", "/tokens/", "/audit/", "/clusters/"):
        response = client.get(path)
        assert response.status_code == 302, path
        assert response["Location"].startswith("/login/?next="), path
