"""An error answer lists at most 20 problems and says how many more, never growing with the input: the API's error
body, a form's errors and an htmx toast alike."""

from __future__ import annotations

import json

import pytest
from django import forms
from rest_framework.test import APIClient

from base.api import error_body
from base.errors import Invalid, add_to_form
from pincompute.errors import FieldError

pytestmark = pytest.mark.django_db


def many(count: int) -> Invalid:
    return Invalid(fields=[FieldError(f"spec.k{i}", "is not a field of the spec") for i in range(count)])


def test_the_error_body_lists_twenty_and_counts_the_rest():
    fields = [{"path": f.path, "message": f.message} for f in many(5000).fields]

    body = error_body(400, "invalid", "the spec is invalid", fields)["error"]

    assert len(body["fields"]) == 20 and body["more"] == 4980
    assert body["message"] == "the spec is invalid (4980 more problems not listed)"


def test_a_key_as_long_as_the_body_is_quoted_cut():
    body = error_body(400, "invalid", "x" * 100_000, [{"path": "k" * 100_000, "message": "is not a field"}])["error"]

    assert len(body["message"]) < 1100 and len(body["fields"][0]["path"]) < 1100 and "more" not in body


def test_thirty_thousand_unknown_keys_get_a_small_answer(admin_user):
    client = APIClient()
    client.force_authenticate(admin_user)
    sent = json.dumps({f"k{i:05d}": 0 for i in range(30_000)})

    response = client.post("/api/v1/tokens/", sent, content_type="application/json")

    error = response.json()["error"]
    assert response.status_code == 400 and len(error["fields"]) == 20 and error["more"] >= 29_980
    assert len(response.content) < len(sent) // 50


class Basics(forms.Form):
    name = forms.CharField()


def test_a_form_shows_twenty_errors_and_how_many_more():
    form = Basics(data={"name": "x"})
    form.is_valid()

    add_to_form(form, many(500))

    assert form.non_field_errors()[-1] == "480 more problems not listed"
    assert len(form.non_field_errors()) == 21
