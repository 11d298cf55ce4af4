"""Ids in page paths: a number longer than any database id matches no route (404), instead of reaching the database
(SQLite, the embedded default, refuses to bind an integer over 64 bits: a 500)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db
HUGE = "9" * 20


@pytest.mark.parametrize(
    "path",
    [
        f"/debug/recordings/{HUGE}/",
        f"/debug/recordings/{HUGE}.cast",
        f"/audit/{HUGE}/",
        f"/tokens/{HUGE}/revoke/",
        f"/projects/requests/{HUGE}/approve/",
    ],
)
def test_a_number_longer_than_any_id_is_a_404(admin_client_logged_in, path):
    assert admin_client_logged_in.get(path).status_code == 404
    assert admin_client_logged_in.post(path).status_code in (403, 404)  # CSRF-exempt test client: 404


def test_the_longest_id_still_matches(admin_client_logged_in):
    assert admin_client_logged_in.get(f"/audit/{'9' * 18}/").status_code == 404  # routed; no such row


@pytest.fixture
def admin_client_logged_in(client, admin_user):
    client.force_login(admin_user)
    return client
