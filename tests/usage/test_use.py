"""The use read model without a cluster: containers from the (hand-filled) caches, use from the session's real
Prometheus (which has scraped nothing of them: no use yet, never counted as idle), sums by pod, workload and project,
refused parameters naming each field, one Prometheus query per scrape interval, and no Prometheus configured."""

from __future__ import annotations

import re
from decimal import Decimal

import httpx
import pytest
from rest_framework.test import APIClient

from tests.support.factories import fill
from tests.support.pods import running_pod
from usage import use

pytestmark = pytest.mark.django_db
GIB = 1 << 30


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def running(project, other_project, caches):
    fill(caches, "member-a", pods=[running_pod("web-1", "ads"), running_pod("web-2", "ads", cpu="2"),
                                   running_pod("t-1", "ml", tier="preemptible", workload="secret-train")])  # fmt: skip
    return caches


def row(name, workload="PinApp/web", pod="web-1", cpu_use=0.1, memory_use=GIB / 4, cpu=1.0, memory=float(GIB)):
    r = use.Use(name=name, project="ads", cluster="member-a", workload=workload, pod=pod, container=name,
                tier="ondemand", containers=1, cpu_use=cpu_use, memory_use=memory_use, cpu_request=cpu,
                memory_request=memory, cpu_limit=2.0, memory_limit=None)  # fmt: skip
    r.measured = cpu_use is not None
    if r.measured:
        r.cpu_waste, r.memory_waste, r.waste_cost = cpu - cpu_use, memory - memory_use, Decimal("0.01")
    return r


def test_containers_sum_by_pod_workload_and_project_and_an_unscraped_one_makes_its_sum_unknown():
    rows = [row("a", pod="web-1"), row("b", pod="web-1", cpu_use=0.5), row("c", pod="web-2", cpu_use=None),
            row("d", workload="PinApp/api", pod="api-1")]  # fmt: skip

    pods = {r.name: r for r in use.roll_up(rows, "pod")}
    workloads = {r.name: r for r in use.roll_up(rows, "workload")}
    (project,) = use.roll_up(rows, "project")

    assert pods["web-1"].cpu_use == pytest.approx(0.6) and pods["web-1"].cpu_waste == pytest.approx(1.4)
    assert pods["web-1"].containers == 2 and pods["web-1"].measured
    assert pods["web-1"].cpu_limit == 4.0 and pods["web-1"].memory_limit is None  # no memory limit: unbounded
    assert pods["web-2"].cpu_use is None and not pods["web-2"].measured and pods["web-2"].cpu_waste == 0
    assert workloads["PinApp/web"].cpu_use is None and workloads["PinApp/web"].cpu_request == 3.0
    assert workloads["PinApp/api"].measured and workloads["PinApp/api"].waste_cost == Decimal("0.01")
    assert project.containers == 4 and project.waste_cost == Decimal("0.03")
    ranked = use.ranked(list(pods.values()), "cpu_waste", 10)
    assert [r.name for r in ranked] == ["web-1", "api-1", "web-2"]  # the unscraped pod last


def test_bad_parameters_are_refused_naming_each_field(running, owner):
    response = api(owner).get("/api/v1/projects/ads/use/", {"level": "node", "sort": "x", "limit": "0"})

    assert response.status_code == 400
    assert {f["path"] for f in response.json()["error"]["fields"]} == {"level", "sort", "limit"}


def test_pods_prometheus_has_not_scraped_are_listed_with_no_use(running, owner, client):
    _, report = use.project_use(owner, "ads", {"level": "container"})

    assert {r.pod for r in report.rows} == {"web-1", "web-2"}  # ml's pod is another tenant's
    assert all(not r.measured and r.cpu_use is None and r.cpu_waste == 0 for r in report.rows)
    assert report.total.cpu_request == 3.0 and report.total.memory_request == 2 * GIB
    client.force_login(owner)
    page = client.get("/usage/projects/ads/use/", {"level": "container"})
    assert page.status_code == 200 and page.content.decode().count("not scraped yet") == 2


def test_another_tenants_project_is_a_404(running, owner, client):
    client.force_login(owner)
    assert client.get("/usage/projects/ml/use/").status_code == 404
    assert api(owner).get("/api/v1/projects/ml/use/").status_code == 404


def test_the_fleet_list_has_every_visible_project_and_admins_see_all(running, owner, admin_user):
    mine = api(owner).get("/api/v1/use/", {"level": "pod"}).json()
    everyone = api(admin_user).get("/api/v1/use/", {"level": "pod"}).json()

    assert {r["project"] for r in mine["rows"]} == {"ads"}
    assert {r["project"] for r in everyone["rows"]} == {"ads", "ml"}


def _queries_answered(url: str) -> float:
    text = httpx.get(f"{url}/metrics").text
    found = re.search(r'prometheus_http_requests_total\{code="200",handler="/api/v1/query"\} (\S+)', text)
    return float(found.group(1)) if found else 0.0


def test_a_page_asked_again_within_a_scrape_interval_costs_no_query(running, owner, usage_metrics, settings):
    settings.PROMETHEUS_SCRAPE_SECONDS = 3600  # one interval for the whole test
    use.project_use(owner, "ads", {})
    before = _queries_answered(usage_metrics.url)

    use.project_use(owner, "ads", {"level": "pod"})
    use.project_use(owner, "ads", {"sort": "cpu_use"})

    assert _queries_answered(usage_metrics.url) == before


def test_without_prometheus_the_pages_and_the_api_say_so(running, owner, client, settings):
    settings.PROMETHEUS_URL = ""
    client.force_login(owner)

    page = client.get("/usage/projects/ads/use/")
    response = api(owner).get("/api/v1/projects/ads/use/")

    assert page.status_code == 503 and "PROMETHEUS_URL is not set" in page.content.decode()
    assert response.status_code == 503 and response.has_header("Retry-After")
