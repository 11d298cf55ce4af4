"""Names people read in lists and the audit log refuse the invisible characters that reorder or hide text (bidi
overrides and isolates, other format characters): a token named with U+202E displays as another name. Right-to-left
text itself, emoji sequences and a description's prose are accepted."""

from __future__ import annotations

import pytest

from accounts.models import ApiToken
from base.text import hidden_character
from tests.support.projects_api import CREATE, as_, fields, snapshot

pytestmark = pytest.mark.django_db
OVERRIDE = "ci\u202etxt.exe"


@pytest.mark.parametrize("char", ["\u202a", "\u202e", "\u2066", "\u2069", "\u200b", "\u200e", "\ufeff", "\x1b"])
def test_format_and_control_characters_are_named(char):
    assert f"U+{ord(char):04X}" in (hidden_character(f"a{char}b") or "")


@pytest.mark.parametrize("text", ["Ads Ranking", "فريق الإعلانات", "צוות", "team 👩\u200d💻", "CC-1042"])
def test_readable_text_passes(text):
    assert hidden_character(text) is None


def test_a_token_name_with_a_bidi_override_is_refused(user):
    response = as_(user).post("/api/v1/tokens/", {"name": OVERRIDE}, format="json")

    assert "U+202E" in fields(response)["name"]
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("field", ["display_name", "team", "cost_center"])
def test_project_labels_with_a_bidi_override_are_refused(user, field):
    before = snapshot()
    body = {**CREATE, field: OVERRIDE, "members": [{"kind": "user", "name": user.username, "role": "owner"}]}

    response = as_(user).post("/api/v1/projects/", body, format="json")

    assert "U+202E" in fields(response)[field]
    assert snapshot() == before


def test_a_description_is_prose_and_may_hold_them(user):
    body = {
        **CREATE,
        "description": "line one\nline \u202etwo",
        "members": [{"kind": "user", "name": user.username, "role": "owner"}],
    }

    assert as_(user).post("/api/v1/projects/", body, format="json").status_code == 201
