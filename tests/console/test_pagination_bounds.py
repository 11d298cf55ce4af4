"""Offsets past any row count are a 400 naming the parameter: PostgreSQL refuses an OFFSET beyond a bigint, which
reached the database as a 500."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("offset", ["99999999999999999999", str(2**31)])
def test_an_offset_beyond_the_bound_is_a_400(admin_client_, offset):
    response = admin_client_.get(f"/api/v1/audit/?offset={offset}")

    assert response.status_code == 400
    assert [f["path"] for f in response.json()["error"]["fields"]] == ["offset"]


def test_the_largest_offset_is_an_empty_page(admin_client_):
    response = admin_client_.get(f"/api/v1/audit/?offset={2**31 - 1}")

    assert response.status_code == 200 and response.json()["results"] == []
