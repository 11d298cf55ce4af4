"""The harness shares WhiteNoise's static-file index between test clients (tests/harness/static_index.py): built once
per set of settings, serving exactly what a middleware of its own would."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from whitenoise.middleware import WhiteNoiseMiddleware

from tests.harness import static_index

APP_JS = "/static/dist/app.js"


@pytest.fixture
def fresh_indexes(monkeypatch):
    monkeypatch.setattr(static_index, "_indexes", {})
    listed = []
    real = finders.get_finders

    def counting():
        listed.append(1)
        return real()

    monkeypatch.setattr(finders, "get_finders", counting)
    return listed


def served(middleware: WhiteNoiseMiddleware) -> tuple[int, dict[str, str], bytes]:
    from django.test import RequestFactory

    response = middleware(RequestFactory().get(APP_JS))
    headers = {k: v for k, v in response.headers.items() if k.lower() != "date"}
    return response.status_code, headers, b"".join(response.streaming_content)


def test_the_second_client_reuses_the_index_the_first_built(fresh_indexes):
    for _ in range(3):
        assert Client().get("/no-such-page/").status_code == 404

    assert len(fresh_indexes) == 1


def test_a_shared_index_serves_what_a_middleware_of_its_own_serves(fresh_indexes, monkeypatch):
    WhiteNoiseMiddleware(lambda request: None)
    shared = served(WhiteNoiseMiddleware(lambda request: None))
    monkeypatch.setattr(WhiteNoiseMiddleware, "add_files_from_finders", static_index._build)
    own = served(WhiteNoiseMiddleware(lambda request: None))

    assert shared == own
    assert shared[0] == 200 and shared[2]


def test_other_settings_get_an_index_of_their_own(fresh_indexes, settings):
    before = served(WhiteNoiseMiddleware(lambda request: None))[1]["Cache-Control"]
    settings.WHITENOISE_MAX_AGE = 1234

    after = served(WhiteNoiseMiddleware(lambda request: None))[1]["Cache-Control"]

    assert before != after and "max-age=1234" in after
    assert len(fresh_indexes) == 2
