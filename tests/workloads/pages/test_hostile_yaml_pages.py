"""The pages that take YAML refuse what PyYAML cannot build (an impossible date, an integer of 5000 digits, a
lone surrogate) with the message beside the form, a 400, and write nothing; never a 500."""

from __future__ import annotations

import copy
import html

import pytest

from tests.support.fake_host import HX, URL, edited_document, fake_host, web  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("2001-02-30", "2001-02-30 is not a valid date or time"),
        ("9" * 5000, "more than 4300 digits"),
        ("0x" + "f" * 5000, "more than 4300 digits"),
        ('"\\ud800"', "half of a surrogate pair"),
    ],
    ids=["feb-30", "5000-digits", "hex", "surrogate"],
)
@pytest.mark.parametrize("action", ["spec/", "spec/preview/"])
def test_an_edit_with_a_value_yaml_cannot_build_is_refused_inline(web, developer, client, value, says, action):  # noqa: F811
    client.force_login(developer)
    before = copy.deepcopy(web.objects)
    document = edited_document(web, 2) + f"extra: {{a: {value}}}\n"

    response = client.post(f"{URL}{action}", {"document": document}, **HX)

    assert response.status_code == 400
    assert says in html.unescape(response.content.decode())
    assert web.objects == before
