"""Right-sizing without a cluster: ``web`` (the fake host's, pods in the hand-filled caches) read against the
session's real Prometheus, which has scraped none of them: no history, so no recommendation, said plainly, and
nothing to apply. Tenancy (another tenant's workload is a 404), viewers read but may not apply, a bad window names
the field, no Prometheus says so."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.support.factories import workload_cr
from tests.support.fake_host import HX, text

pytestmark = pytest.mark.django_db
API = "/api/v1/projects/ads/workloads/PinApp/web/recommendations/"
PANEL = "/workloads/ads/PinApp/web/recommendations/"


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_container_with_no_history_gets_no_recommendation_said_plainly(web, viewer, client, usage_metrics):
    body = api(viewer).get(API, {"window": "1h"}).json()

    assert (body["kind"], body["name"], body["window"], body["tier"]) == ("PinApp", "web", "1h", "ondemand")
    (app,) = body["containers"]
    assert (app["container"], app["cpu_request"], app["memory_request"]) == ("app", "1", "1Gi")
    assert app["recommendation"] is None and app["money_saving"] is None
    assert "no recommendation" in app["note"] and body["document"] is None
    client.force_login(viewer)
    panel = text(client.get(PANEL, **HX))
    assert "No use in this window yet" in panel and "rightsizing-apply" not in panel


def test_the_workload_page_loads_the_panel_beside_the_spec(web, developer, client):
    client.force_login(developer)
    page = text(client.get("/workloads/ads/PinApp/web/"))
    assert f'hx-get="{PANEL}"' in page


def test_another_tenants_workload_is_a_404_everywhere(web, owner, client):
    web.put(workload_cr("secret-train", project="ml"))
    client.force_login(owner)

    assert api(owner).get("/api/v1/projects/ml/workloads/PinApp/secret-train/recommendations/").status_code == 404
    assert client.get("/workloads/ml/PinApp/secret-train/recommendations/").status_code == 404
    assert client.get("/workloads/ml/PinApp/secret-train/recommendations/apply/").status_code == 404


def test_a_viewer_may_not_apply_and_with_nothing_recommended_there_is_nothing_to_apply(
    web, viewer, developer, client, usage_metrics
):
    client.force_login(viewer)
    assert client.get(f"{PANEL}apply/").status_code == 403
    client.force_login(developer)
    nothing = client.get(f"{PANEL}apply/")
    assert nothing.status_code == 200 and "There is no recommendation to apply" in text(nothing)
    assert 'name="document"' not in text(nothing)  # no edit form to save


def test_a_bad_window_names_the_field(web, owner, client):
    response = api(owner).get(API, {"window": "2y"})
    client.force_login(owner)
    panel = client.get(PANEL, {"window": "2y"}, **HX)

    assert response.status_code == 400 and [f["path"] for f in response.json()["error"]["fields"]] == ["window"]
    assert panel.status_code == 400 and "Use one of 1h, 6h, 24h, 7d" in text(panel)


def test_without_prometheus_the_panel_and_the_api_say_so(web, owner, client, settings):
    settings.PROMETHEUS_URL = ""
    client.force_login(owner)

    assert api(owner).get(API).status_code == 503
    panel = client.get(PANEL, **HX)
    assert panel.status_code == 503 and "PROMETHEUS_URL is not set" in text(panel)
