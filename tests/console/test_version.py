"""``GET /api/v1/version/``: the portal's version (what ``pincompute version`` shows as the server's), the one in
``pyproject.toml``; signed-in callers only."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from console.version import VERSION
from tests.support.api_host import client_for

pytestmark = pytest.mark.django_db


def test_the_version_is_pyprojects():
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())

    assert pyproject["project"]["version"] == VERSION


def test_the_api_answers_the_portals_version_to_a_signed_in_caller(user):
    assert client_for(user).get("/api/v1/version/").json() == {"version": VERSION, "api": "v1"}
    assert client_for(None).get("/api/v1/version/").status_code == 401
