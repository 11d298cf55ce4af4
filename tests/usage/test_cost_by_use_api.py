"""Chargeback by use beside by request through the API, the CSV and the pages (the CLI: tests/sdk/test_cli_cost.py):
stored samples where one workload used more than it requested and another less; a member pool's idle by request and
by use, shown to platform admins apart (never on a project's figures)."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from tests.support.cost_samples import cost, samples  # noqa: F401 - a fixture, used by name
from usage.views import CSV_COLUMNS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("samples")]


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_each_workload_is_billed_by_use_beside_by_request(viewer):
    body = api(viewer).get("/api/v1/projects/ads/cost/", {"window": "1h", "aggregate": "workload"}).json()

    rows = {a["name"]: a for a in body["totals"]}
    web, batch = rows["PinApp/web"], rows["PinApp/batch"]
    assert web["total_request_cost"] == pytest.approx(cost(100)) and web["total_cost"] == pytest.approx(cost(150))
    assert web["over_request_cost"] == pytest.approx(cost(50))
    assert web["cpu_use_core_hours"] == pytest.approx(150 * 3 / 60)
    assert batch["total_request_cost"] == batch["total_cost"] == pytest.approx(cost(200))
    assert batch["over_request_cost"] == 0 and batch["cpu_use_core_hours"] == pytest.approx(50 * 3 / 60)
    assert body["total_request_cost"] == pytest.approx(cost(300)) and body["total_cost"] == pytest.approx(cost(350))
    assert body["pools"] == []  # idle is the platform's, never a project's


def test_admins_see_each_pools_idle_apart_by_request_and_by_use(admin_user):
    body = api(admin_user).get("/api/v1/cost/", {"window": "1h", "aggregate": "project"}).json()

    (pool,) = body["pools"]
    assert (pool["cluster"], pool["tier"]) == ("member-a", "ondemand")
    assert pool["capacity_cost"] == pytest.approx(cost(1000))
    assert pool["idle_cost_by_request"] == pytest.approx(cost(700))
    assert pool["idle_cost_by_use"] == pytest.approx(cost(650))
    assert pool["allocated_cost_by_use"] + pool["idle_cost_by_use"] == pytest.approx(pool["capacity_cost"])
    idle = next(a for a in body["totals"] if a["name"] == "__idle__")
    assert idle["total_request_cost"] == pytest.approx(cost(700)) and idle["total_cost"] == pytest.approx(cost(650))
    ads = next(a for a in body["totals"] if a["name"] == "ads")
    assert ads["total_cost"] == pytest.approx(cost(350))  # no idle spread onto it


def test_the_csv_keeps_its_columns_and_adds_the_new_ones_after_them(viewer, client):
    client.force_login(viewer)

    text = client.get("/usage/projects/ads/cost.csv", {"window": "1h", "step": "1h"}).content.decode()

    header, *rows = list(csv.reader(io.StringIO(text)))
    old = header[: header.index("total_cost") + 1]
    assert old[-4:] == ["cpu_cost", "ram_cost", "gpu_cost", "total_cost"] and tuple(header) == CSV_COLUMNS
    assert header[len(old) :] == ["cpu_use_core_hours", "ram_use_gib_hours", "cpu_request_cost", "ram_request_cost",
                                  "gpu_request_cost", "total_request_cost", "over_request_cost"]  # fmt: skip
    web = next(dict(zip(header, r, strict=True)) for r in rows if r[2] == "PinApp/web")
    assert Decimal(web["over_request_cost"]) == pytest.approx(Decimal(str(round(cost(50), 6))))


def test_the_pages_compare_by_request_and_by_use(viewer, admin_user, client):
    client.force_login(viewer)
    page = client.get("/usage/projects/ads/", {"window": "1h"}).content.decode()
    assert 'id="cost-request-use"' in page and "Use over requests" in page and 'id="pool-table"' not in page

    client.force_login(admin_user)
    page = client.get("/usage/", {"window": "1h"}).content.decode()
    assert 'id="cost-request-use"' in page and 'id="pool-table"' in page and "member-a" in page
