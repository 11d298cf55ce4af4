"""Under DEBUG (the embedded default, `manage.py dev`) a 404 answers as production does, not with Django's HTML
technical 404 (its URL list): an unmatched /api/ path the one JSON error body, a page the portal's 404 page (a path
no route matches, and a view's Http404); the API's own 404s pass unchanged."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def debug_on(settings):
    settings.DEBUG = True
    if "console.middleware.NotFoundMiddleware" not in settings.MIDDLEWARE:
        settings.MIDDLEWARE = [*settings.MIDDLEWARE, "console.middleware.NotFoundMiddleware"]


def test_an_unmatched_api_path_is_the_json_error_body(debug_on, admin_client_):
    response = admin_client_.get("/api/v1/projects/ml/quota/ondemand%2F../")

    assert response.status_code == 404 and response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["code"] == "not_found" and "No API endpoint" in response.json()["error"]["message"]


def test_the_apis_own_404_is_unchanged(debug_on, admin_client_):
    api = admin_client_.get("/api/v1/projects/missing/")

    assert api.status_code == 404 and api.json()["error"]["message"] == "No such project."


@pytest.mark.parametrize("path", ["/no-such-page/", "/projects/missing/"])
def test_a_missing_page_is_the_portals_404_page_not_the_url_list(debug_on, admin_client_, path):
    page = admin_client_.get(path)

    body = page.content.decode()
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
    assert "We could not find that page" in body and "Go to the dashboard" in body
    assert "URLconf" not in body and "Raised by" not in body
