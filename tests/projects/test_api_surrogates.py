"""A lone surrogate (the six characters ``\\ud800`` in a JSON body) is not text: refused at parse time by path
(keys too, not just values), and never a 500 when an error body would quote it."""

from __future__ import annotations

import json

import pytest

from base.api import error_body
from base.parsers import unencodable
from tests.support.projects_api import CREATE, GRANT, as_, fields, snapshot

pytestmark = pytest.mark.django_db
LONE = "Surrogate characters are not allowed: U+D800."


def send(client, method: str, url: str, text: str):
    client.raise_request_exception = False
    return getattr(client, method)(url, text, content_type="application/json")


def raw(value: object, surrogate: str = "\\ud800") -> str:
    """``value`` as JSON text with each ``@`` written as the escape ``surrogate`` (json.dumps would join none)."""
    return json.dumps(value).replace("@", surrogate)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        (raw({**CREATE, "@": 1}), "\\ud800"),
        (raw({**CREATE, "quotas": {"ondemand": {"@": "1"}}}), "quotas.ondemand.\\ud800"),
        (raw({**CREATE, "members": [{"kind": "user", "name": "x", "@": 1}]}), "members[0].\\ud800"),
        (raw({**CREATE, "team": "t@"}), "team"),
    ],
    ids=["key", "quotas-key", "members-key", "value"],
)
def test_onboarding_refuses_a_lone_surrogate_by_path(region, caches, user, text, path):
    before = snapshot()

    response = send(as_(user), "post", "/api/v1/projects/", text)

    assert fields(response) == {path: LONE}
    assert snapshot() == before


@pytest.mark.parametrize(
    ("method", "url", "text", "path"),
    [
        ("patch", "/api/v1/projects/ads/", '{"\\ud800": "x"}', "\\ud800"),
        ("patch", "/api/v1/projects/ads/", '{"description": "\\udc00"}', "description"),
        ("put", "/api/v1/projects/ads/quota/ondemand/", raw({**GRANT, "@": 1}, "\\udc00"), "\\udc00"),
        ("put", "/api/v1/projects/ads/members/user/vic/", '{"role": "viewer", "\\ud800": 1}', "\\ud800"),
    ],
    ids=["edit-key", "edit-value", "quota-key", "member-key"],
)
def test_changes_refuse_a_lone_surrogate_by_path_and_change_nothing(project, owner, method, url, text, path):
    before = snapshot()

    response = send(as_(owner), method, url, text)

    assert path in fields(response)
    assert fields(response)[path].startswith("Surrogate characters are not allowed: U+D")
    assert snapshot() == before


def test_a_surrogate_pair_is_one_character_and_is_taken(project, owner):
    response = send(as_(owner), "patch", "/api/v1/projects/ads/", '{"description": "launch \\ud83d\\ude80"}')

    assert response.status_code == 200 and response.json()["description"] == "launch \U0001f680"


def test_many_surrogates_are_named_up_to_a_limit(region, caches, user):
    text = raw({f"k{i}@": i for i in range(500)})

    response = send(as_(user), "post", "/api/v1/projects/", text)

    assert len(fields(response)) == 20 and len(response.content) < 5000


def test_deep_nesting_is_a_400_not_a_500(region, caches, user):
    response = send(as_(user), "post", "/api/v1/projects/", "[" * 100_000 + "]" * 100_000)

    assert response.status_code == 400 and "nested" in response.json()["error"]["message"]


def test_the_walk_names_keys_and_values_in_document_order():
    data = {"a": ["ok", "\udfff"], "\ud800": {"\udc00": "x"}, "b": {"c": "\ud801"}, "é": "\U0001f680"}

    assert unencodable(data) == {
        "a[1]": "Surrogate characters are not allowed: U+DFFF.",
        "\\ud800": LONE,
        "b.c": "Surrogate characters are not allowed: U+D801.",
    }


def test_an_error_body_quoting_a_lone_surrogate_is_escaped_so_it_can_be_sent():
    found = error_body(400, "invalid", "'\ud800' is bad", [{"path": "labels.\ud800", "message": "x\udc00"}])

    error = found["error"]
    assert (error["message"], error["fields"]) == (
        "'\\ud800' is bad",
        [{"path": "labels.\\ud800", "message": "x\\udc00"}],
    )
    json.dumps(found, ensure_ascii=False).encode("utf-8")
