"""``/api/schema/`` is generated once per process and format, and the formats stay apart."""

from __future__ import annotations

import json

import pytest
import yaml
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db


def test_the_schema_is_generated_once_and_each_format_is_served_as_asked(client, monkeypatch, settings):
    settings.SPECTACULAR_SETTINGS = dict(settings.SPECTACULAR_SETTINGS)  # a settings change forgets earlier renders
    first_yaml = client.get("/api/schema/")
    first_json = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    def generated_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the schema was generated again")

    monkeypatch.setattr(SchemaGenerator, "get_schema", generated_again)
    again_yaml = client.get("/api/schema/")
    again_json = client.get("/api/schema/?format=json")

    assert first_yaml["Content-Type"].startswith("application/vnd.oai.openapi")
    assert first_json["Content-Type"].startswith("application/vnd.oai.openapi+json")
    assert again_yaml.content == first_yaml.content
    assert json.loads(again_json.content) == json.loads(first_json.content) == yaml.safe_load(first_yaml.content)
    assert again_json["Content-Disposition"].endswith('.json"')
