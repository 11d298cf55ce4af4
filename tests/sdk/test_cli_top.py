"""``pincompute top`` against the real portal (``live_server``) and the session's Prometheus, with a real API token:
a project's pods and workloads with their requests (use not scraped yet for hand-filled pods), every project the
token sees with -A, the API's body with -o json, another tenant's project not found, no project a usage error."""

from __future__ import annotations

import io
import json

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from tests.support.factories import fill
from tests.support.pods import running_pod


@pytest.mark.django_db(transaction=True)
def test_top_lists_pods_and_workloads_of_a_project_or_of_every_visible_one(
    live_server, project, other_project, caches, owner, monkeypatch
):
    fill(caches, "member-a", pods=[running_pod("web-1", "ads"), running_pod("web-2", "ads", cpu="2"),
                                   running_pod("t-1", "ml", workload="secret-train")])  # fmt: skip
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=owner, name="top", days=1)[1])

    def cli(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    code, out, _ = cli("top", "pods", "-n", "ads", "--sort", "cpu_request")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:3] == ["NAME", "TIER", "CPU(use/req)"]
    assert [line.split()[0] for line in lines[1:]] == ["web-2", "web-1"]  # by request, largest first
    assert lines[1].split()[2] == "-/2.000"  # no use scraped yet for a hand-filled pod
    code, out, _ = cli("top", "workloads", "-A", "-o", "json")
    body = json.loads(out)
    assert code == 0 and [(r["name"], r["project"], r["cpu_request"]) for r in body["rows"]] == [
        ("PinApp/web", "ads", 3.0)
    ]
    assert cli("top", "pods", "-n", "ml")[0] == 3  # another tenant's: not found
    code, _, err = cli("top", "pods")
    assert code == 2 and "-n PROJECT" in err
