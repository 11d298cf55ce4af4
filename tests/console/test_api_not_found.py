"""Under DEBUG (the embedded default) an unmatched /api/ path answers the one JSON error body, as production does,
not Django's HTML technical 404; pages keep the technical page, and the API's own 404s pass unchanged."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def debug_on(settings):
    settings.DEBUG = True
    if "console.middleware.ApiNotFoundMiddleware" not in settings.MIDDLEWARE:
        settings.MIDDLEWARE = [*settings.MIDDLEWARE, "console.middleware.ApiNotFoundMiddleware"]


def test_an_unmatched_api_path_is_the_json_error_body(debug_on, admin_client_):
    response = admin_client_.get("/api/v1/projects/ml/quota/ondemand%2F../")

    assert response.status_code == 404 and response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["code"] == "not_found" and "No API endpoint" in response.json()["error"]["message"]


def test_the_apis_own_404_and_pages_are_unchanged(debug_on, admin_client_):
    api = admin_client_.get("/api/v1/projects/missing/")
    page = admin_client_.get("/no-such-page/")

    assert api.status_code == 404 and api.json()["error"]["message"] == "No such project."
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
