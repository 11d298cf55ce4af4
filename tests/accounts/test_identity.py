"""OIDC identities: users keyed by (issuer, sub), never linked by email; groups mirrored and their changes audited;
the platform-admin group is the portal's admin role, not Django superuser; the admin site is read-only for them."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import SuspiciousOperation
from django.core.management import CommandError, call_command
from django.test import override_settings

from accounts.identity import free_username
from accounts.models import OidcIdentity
from accounts.oidc import PortalOIDCBackend, verified_email
from base.models import AuditEvent
from base.permissions import is_platform_admin

pytestmark = pytest.mark.django_db
ISS = "https://idp.example/dex"


def claims(sub: str, email: str = "", verified: Any = True, groups: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"iss": ISS, "sub": sub, "groups": list(groups)}
    if email:
        out["email"] = email
    if verified is not None:
        out["email_verified"] = verified
    return out


def sign_in(c: dict[str, Any]) -> Any:
    """What mozilla-django-oidc's get_or_create_user does with the claims once the tokens are verified."""
    backend = PortalOIDCBackend()
    if not backend.verify_claims(c):
        raise SuspiciousOperation("Claims verification failed")
    users = list(backend.filter_users_by_claims(c))
    return backend.update_user(users[0], c) if users else backend.create_user(c)


@pytest.fixture
def local_superuser(django_user_model):
    return django_user_model.objects.create_superuser("admin", "admin@example.com", "pw-Admin-1234")


@pytest.mark.parametrize("verified", [None, "false", "true", False, 1])
def test_an_unverified_email_never_reaches_an_existing_account(local_superuser, verified):
    user = sign_in(claims("attacker", "admin@example.com", verified))

    assert user.pk != local_superuser.pk
    assert user.email == "" and not user.is_superuser and not user.is_staff
    assert not OidcIdentity.objects.filter(user=local_superuser).exists()


def test_a_verified_email_equal_to_an_account_still_gets_a_new_user(local_superuser):
    user = sign_in(claims("someone-else", "admin@example.com", True))

    assert user.pk != local_superuser.pk and user.username == "admin@example.com"
    assert not user.is_superuser and local_superuser.oidc_identities.count() == 0


def test_the_same_identity_signs_in_as_the_same_user_and_another_subject_does_not():
    first = sign_in(claims("sub-1", "dev@example.com"))
    again = sign_in(claims("sub-1", "dev@example.com"))
    other = sign_in(claims("sub-2", "dev@example.com"))
    other_issuer = sign_in({**claims("sub-1", "dev@example.com"), "iss": "https://other.example"})

    assert again.pk == first.pk
    assert len({first.pk, other.pk, other_issuer.pk}) == 3
    assert [first.username, other.username, other_issuer.username] == [
        "dev@example.com",
        "dev@example.com-2",
        "dev@example.com-3",
    ]
    assert OidcIdentity.objects.get(issuer=ISS, subject="sub-1").last_sign_in_at is not None


def test_verified_email_is_the_boolean_true_only():
    assert verified_email({"email": "a@example.com", "email_verified": True}) == "a@example.com"
    for bad in (None, "true", 1, "false", False):
        assert verified_email({"email": "a@example.com", "email_verified": bad}) == ""
    assert verified_email({"email_verified": True}) == ""


def test_claims_without_an_issuer_or_subject_are_refused():
    backend = PortalOIDCBackend()
    assert not backend.verify_claims({"iss": ISS, "email": "a@example.com", "email_verified": True})
    assert not backend.verify_claims({"sub": "x"})
    assert not backend.verify_claims({"iss": ISS, "sub": "x" * 256})
    assert not backend.verify_claims({"iss": ISS, "sub": 42})
    assert backend.verify_claims({"iss": ISS, "sub": "x"})


def test_the_platform_admin_group_is_the_portals_admin_role_not_a_django_superuser(settings):
    user = sign_in(claims("root", "root@example.com", groups=("devs", settings.PLATFORM_ADMIN_GROUP)))

    assert is_platform_admin(user) and not user.is_superuser and not user.is_staff
    created = AuditEvent.objects.get(action="user.create", actor=user)
    assert created.after == {"groups": ["devs", settings.PLATFORM_ADMIN_GROUP], "issuer": ISS}


def test_group_changes_at_sign_in_are_audited_and_unchanged_groups_are_not(settings):
    user = sign_in(claims("root", groups=("devs", settings.PLATFORM_ADMIN_GROUP)))
    sign_in(claims("root", groups=("devs", settings.PLATFORM_ADMIN_GROUP)))
    assert not AuditEvent.objects.filter(action="user.groups").exists()

    user = sign_in(claims("root", groups=("devs",)))

    event = AuditEvent.objects.get(action="user.groups")
    assert event.before == {"groups": ["devs", settings.PLATFORM_ADMIN_GROUP]} and event.after == {"groups": ["devs"]}
    assert not is_platform_admin(user)


class _UserInfo(BaseHTTPRequestHandler):
    answer: dict[str, Any] = {}

    def do_GET(self) -> None:
        body = json.dumps(self.answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def userinfo_endpoint(settings):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _UserInfo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.OIDC_OP_USER_ENDPOINT = f"http://127.0.0.1:{server.server_address[1]}/userinfo"
    yield _UserInfo
    server.shutdown()


def test_userinfo_about_another_subject_is_refused(userinfo_endpoint):
    userinfo_endpoint.answer = {"sub": "victim", "email": "v@example.com", "email_verified": True}
    backend = PortalOIDCBackend()

    with pytest.raises(SuspiciousOperation):
        backend.get_userinfo("token", "id-token", {"iss": ISS, "sub": "attacker"})
    userinfo_endpoint.answer = {"email": "a@example.com", "email_verified": True}
    info = backend.get_userinfo("token", "id-token", {"iss": ISS, "sub": "attacker"})
    assert (info["iss"], info["sub"]) == (ISS, "attacker")


def test_an_admin_links_an_identity_explicitly_and_it_is_audited(local_superuser):
    out = StringIO()
    call_command("link_identity", "--issuer", ISS, "--subject", "admin-sub", "--user", "admin", stdout=out)

    assert sign_in(claims("admin-sub")).pk == local_superuser.pk
    assert AuditEvent.objects.get(action="user.identity.link").target_name == "admin"
    taken = get_user_model().objects.create_user("someone")
    with pytest.raises(CommandError, match="signs in as 'admin'"):
        call_command("link_identity", "--issuer", ISS, "--subject", "admin-sub", "--user", taken.username)
    with pytest.raises(CommandError, match="No user"):
        call_command("link_identity", "--issuer", ISS, "--subject", "x", "--user", "nobody")

    call_command("link_identity", "--issuer", ISS, "--subject", "admin-sub", "--unlink", stdout=out)
    assert sign_in(claims("admin-sub")).pk != local_superuser.pk
    assert AuditEvent.objects.filter(action="user.identity.unlink").count() == 1


def test_free_usernames_never_collide(django_user_model):
    django_user_model.objects.create_user("dev")
    django_user_model.objects.create_user("DEV-2")
    assert free_username("dev") == "dev-3"
    assert free_username("") == "user"
    assert len(free_username("x" * 400)) <= 150


def test_the_admin_is_read_only_for_platform_admins_and_closed_to_others(client, admin_user, user):
    """``admin_user`` is a platform admin by group (tests/conftest.py), not a superuser."""
    assert not admin_user.is_superuser
    client.force_login(admin_user)
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/base/auditevent/").status_code == 200
    assert client.get("/admin/projects/project/").status_code == 200
    assert client.get("/admin/projects/project/add/").status_code == 403
    new_user = {"username": "x", "password1": "a", "password2": "a"}
    assert client.post("/admin/auth/user/add/", new_user).status_code == 403
    assert not get_user_model().objects.filter(username="x").exists()

    client.force_login(user)  # signed in without the role: a refusal, not a second sign-in form
    assert client.get("/admin/", follow=True).status_code == 403
    assert client.get("/admin/base/auditevent/", follow=True).status_code == 403


@override_settings(DEV_LOGIN_ENABLED=False, AUTHENTICATION_BACKENDS=["accounts.oidc.PortalOIDCBackend"])
def test_the_admin_login_is_never_a_second_sign_in_form(client, local_superuser):
    posted = client.post("/admin/login/", {"username": "admin", "password": "pw-Admin-1234"})
    got = client.get("/admin/login/?next=/admin/base/auditevent/")

    assert posted.status_code == 302 and posted["Location"].startswith("/login/")
    assert got.status_code == 302 and got["Location"] == "/login/?next=/admin/base/auditevent/"
    assert "_auth_user_id" not in client.session


def test_the_migration_drops_superuser_from_accounts_sign_in_made(django_user_model):
    from importlib import import_module

    from django.apps import apps

    made_by_sign_in = django_user_model.objects.create_user("oidc-admin", is_superuser=True, is_staff=True)
    made_by_sign_in.set_unusable_password()
    made_by_sign_in.save()
    explicit = django_user_model.objects.create_superuser("root", "", "pw-Root-1234")

    import_module("accounts.migrations.0003_oidcidentity").drop_oidc_superusers(apps, None)

    made_by_sign_in.refresh_from_db()
    explicit.refresh_from_db()
    assert not made_by_sign_in.is_superuser and not made_by_sign_in.is_staff
    assert explicit.is_superuser


def test_sign_out_ends_the_idp_session_when_a_logout_endpoint_is_configured(client, user, settings):
    settings.OIDC_OP_LOGOUT_ENDPOINT = "https://idp.example/dex/logout?x=1"
    settings.OIDC_RP_CLIENT_ID = "pinconsole"
    client.force_login(user)
    session = client.session
    session["oidc_id_token"] = "eyJ.id.token"
    session.save()

    response = client.post("/logout/")

    assert response.status_code == 302
    assert response["Location"] == (
        "https://idp.example/dex/logout?x=1&id_token_hint=eyJ.id.token&client_id=pinconsole"
        "&post_logout_redirect_uri=http%3A%2F%2Ftestserver%2Flogin%2F"
    )
    assert "_auth_user_id" not in client.session
    assert AuditEvent.objects.filter(action="user.logout", actor=user).exists()


def test_a_password_session_signs_out_locally_even_with_a_logout_endpoint(client, user, settings):
    settings.OIDC_OP_LOGOUT_ENDPOINT = "https://idp.example/logout"
    client.force_login(user)

    assert client.post("/logout/")["Location"] == "/login/"
