"""The chargeback API and pages: who sees what (members their project, admins everything and idle, another
tenant's project a 404 with none of its data), refused parameters with the one JSON error body, audited prices."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from base.models import AuditEvent
from tests.support.factories import fill
from tests.support.pods import running_pod
from usage.models import Price
from usage.sampling import sample

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def sampled(project, other_project, caches):
    """Three minutes of ``ads`` (two OnDemand cores of web) and ``ml`` (one Preemptible pod of secret-train)."""
    fill(caches, "member-a", pods=[running_pod("web-1", "ads"), running_pod("web-2", "ads"),
                                   running_pod("t-1", "ml", tier="preemptible", workload="secret-train")])  # fmt: skip
    fill(caches, "member-b", pods=[])
    now = timezone.now()
    for m in (3, 2, 1):
        sample(now - timedelta(minutes=m))


def test_a_member_reads_the_projects_cost_by_workload(sampled, viewer):
    response = api(viewer).get("/api/v1/projects/ads/cost/", {"window": "1h", "step": "1h", "aggregate": "workload"})

    assert response.status_code == 200, response.content
    body = response.json()
    (web,) = body["totals"]
    assert web["name"] == "PinApp/web" and web["cpu_core_hours"] == pytest.approx(2 * 3 / 60)
    assert body["total_cost"] == pytest.approx(sum(s["total_cost"] for s in body["steps"]))
    assert body["currency"] == "USD" and body["aggregate"] == ["workload"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"window": "forever"}, "window"),
        ({"window": "2026-11-02T00:00Z,2026-11-01T00:00Z"}, "window"),
        ({"window": "9999-12-31T23:59-01:00,9999-12-31T23:59Z"}, "window"),
        ({"window": "1000d"}, "window"),
        ({"step": "15m"}, "step"),
        ({"window": "120d", "step": "1h"}, "step"),
        ({"aggregate": "namespace"}, "aggregate"),
        ({"aggregate": "team"}, "aggregate"),  # not a dimension inside one project
    ],
)
def test_bad_parameters_are_a_400_naming_the_parameter(sampled, developer, query, field):
    response = api(developer).get("/api/v1/projects/ads/cost/", query)

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["fields"]
    assert error["fields"][0]["path"] == field


def test_another_tenants_project_is_a_404_without_its_data(sampled, developer):
    response = api(developer).get("/api/v1/projects/ml/cost/", {"aggregate": "workload"})

    assert response.status_code == 404
    assert "secret-train" not in response.content.decode()


def test_the_report_shows_members_their_projects_and_admins_everything_with_idle(sampled, developer, admin_user):
    mine = api(developer).get("/api/v1/cost/", {"window": "1h", "aggregate": "project"}).json()
    everything = api(admin_user).get("/api/v1/cost/", {"window": "1h", "aggregate": "project"}).json()

    assert [a["name"] for a in mine["totals"]] == ["ads"]
    assert {a["name"] for a in everything["totals"]} == {"ads", "ml", "__idle__"}
    assert "secret-train" not in str(mine)


def test_prices_are_changed_by_admins_only_and_audited(sampled, owner, admin_user):
    refused = api(owner).put("/api/v1/prices/ondemand/", {"cpu": "1"}, format="json")
    bad = api(admin_user).put("/api/v1/prices/ondemand/", {"cpu": "-1", "gpu": "x"}, format="json")
    before = api(admin_user).get("/api/v1/projects/ads/cost/", {"window": "1h"}).json()["total_cost"]
    unchanged = not Price.objects.exists() and not AuditEvent.objects.filter(action="prices.update").exists()

    changed = api(admin_user).put("/api/v1/prices/ondemand/", {"cpu": "0.08"}, format="json")

    assert refused.status_code == 403 and unchanged
    assert bad.status_code == 400 and {f["path"] for f in bad.json()["error"]["fields"]} == {"cpu", "gpu"}
    assert changed.status_code == 200
    event = AuditEvent.objects.get(action="prices.update")
    assert event.actor_name == "ops" and event.before["cpu"] == "0.040000" and event.after["cpu"] == "0.080000"
    after = api(owner).get("/api/v1/projects/ads/cost/", {"window": "1h"}).json()["total_cost"]
    assert after > before


def test_pages_show_the_cost_and_export_csv(sampled, viewer, client):
    client.force_login(viewer)

    page = client.get("/usage/projects/ads/", {"window": "24h", "step": "1h"})
    exported = client.get("/usage/projects/ads/cost.csv", {"window": "24h", "step": "1h"})
    other = client.get("/usage/projects/ml/")
    refused = client.get("/usage/projects/ads/", {"window": "soon"})

    assert page.status_code == 200 and b"PinApp/web" in page.content and b'id="cost-over-time"' in page.content
    lines = exported.content.decode().splitlines()
    assert lines[0].startswith("step_start,step_end,name,project") and any("PinApp/web" in line for line in lines[1:])
    assert other.status_code == 404 and b"secret-train" not in other.content
    assert refused.status_code == 400 and b"not a duration" in refused.content


def test_the_admin_report_and_the_capacity_partial(sampled, admin_user, client):
    client.force_login(admin_user)

    report = client.get("/usage/", {"window": "24h", "aggregate": "cost_center"})
    capacity = client.get("/usage/clusters/member-a/capacity/")
    missing = client.get("/usage/clusters/nowhere/capacity/")

    assert report.status_code == 200 and b"idle capacity" in report.content
    assert capacity.status_code == 200 and b"capacity-ondemand" in capacity.content
    assert missing.status_code == 404


def test_the_price_form_refuses_non_admins(sampled, owner, client):
    client.force_login(owner)

    assert client.get("/usage/prices/").status_code == 200
    assert client.post("/usage/prices/", {"tier": "reserved", "cpu": "0"}).status_code == 403
    assert not Price.objects.exists()
