"""Password sign-in holds back guessing: after 10 failed passwords for one name from one address the next tries
are a 429 with Retry-After, not even checked (the right password included), while the same name from another
address and other names still sign in. Counted where the API's limits are (the suite's Redis)."""

from __future__ import annotations

import pytest

from accounts.services import SIGN_IN_FAILURES_PER_NAME
from base.models import AuditEvent

pytestmark = pytest.mark.django_db
PASSWORD = "pw-dev1-Secret!"


@pytest.fixture(autouse=True)
def password_sign_in(settings):
    settings.DEV_LOGIN_ENABLED = True


def sign_in(client, username, password, address="10.1.1.1"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def test_guessing_is_held_back_per_name_and_address(client, user, other_user):
    answers = [sign_in(client, user.username, f"wrong-{i}").status_code for i in range(SIGN_IN_FAILURES_PER_NAME)]

    held = sign_in(client, user.username, PASSWORD)

    assert answers == [200] * SIGN_IN_FAILURES_PER_NAME  # the form again, with its error
    assert held.status_code == 429 and 1 <= int(held["Retry-After"]) <= 300
    assert b"Too many failed sign-ins" in held.content and "_auth_user_id" not in client.session
    assert not AuditEvent.objects.filter(action="user.login").exists()
    assert sign_in(client, user.username, PASSWORD, address="10.2.2.2").status_code == 302  # another address
    client.logout()
    assert sign_in(client, other_user.username, "pw-dev2-Secret!").status_code == 302  # another name
