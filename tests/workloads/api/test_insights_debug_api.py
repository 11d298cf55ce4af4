"""The insight and debugging-discovery APIs: a workload's and a project's timeline (state changes and events
from the caches, newest first, with ISO-8601 time filters), and a pod's shell and log websocket URLs."""

from __future__ import annotations

import pytest

from tests.support.api_host import client_for
from tests.support.workloads_api import ONE, error, paths

pytestmark = pytest.mark.django_db
POD = "/api/v1/projects/ads/pods/member-a/web-local-1a-abc/"


def test_a_workloads_timeline_merges_state_changes_and_events_newest_first(web, viewer):
    body = client_for(viewer).get(f"{ONE}timeline/").json()

    entries = body["results"]
    assert body["truncated"] is False
    assert [e["at"] for e in entries] == sorted((e["at"] for e in entries), reverse=True)
    titles = [(e["source"], e["category"], e["title"]) for e in entries]
    assert ("member-a", "event", "BackOff") in titles  # its pod's event on a member
    assert ("host", "event", "Scheduled") in titles
    assert ("host", "state", "Ready → True (AllShards)") in titles
    assert ("host", "revision", "Revision 2 accepted") in titles
    assert not any(e["title"] == "QuotaExceeded" for e in entries)  # another workload's
    backoff = next(e for e in entries if e["title"] == "BackOff")
    assert backoff["level"] == "warning" and backoff["subject"] == "Pod web-local-1a-abc"


def test_the_timeline_filters_by_time_and_limits(web, viewer):
    client = client_for(viewer)

    window = client.get(f"{ONE}timeline/?since=2026-11-22T00:01:00Z&until=2026-11-22T00:03:59%2B00:00").json()
    naive = client.get(f"{ONE}timeline/?since=2026-11-22T00:03:00").json()  # no zone: UTC
    one = client.get(f"{ONE}timeline/?limit=1").json()

    assert window["results"] and all("00:01:00" <= e["at"][11:19] <= "00:03:59" for e in window["results"])
    assert [e["title"] for e in naive["results"]] == ["BackOff"]
    assert len(one["results"]) == 1 and one["truncated"] is True and one["results"][0]["title"] == "BackOff"
    assert set(paths(client.get(f"{ONE}timeline/?since=yesterday&limit=0"))) == {"since"}
    assert client.get(f"{ONE}timeline/?since=2026-11-22T01:00:00Z&until=2026-11-22T00:00:00Z").json()["results"] == []


def test_a_projects_timeline_names_each_entrys_workload(web, viewer):
    body = client_for(viewer).get("/api/v1/projects/ads/timeline/?since=2026-11-22T00:00:06Z").json()

    refs = {(e["workload"]["name"], e["title"]) for e in body["results"]}
    assert ("waiting", "QuotaExceeded") in refs and ("web", "BackOff") in refs and ("web", "Scheduled") in refs
    assert all(e["at"] >= "2026-11-22T00:00:06" for e in body["results"])


def test_timelines_of_another_tenant_are_404(web, other_user, other_project):
    client = client_for(other_user)

    error(client.get(f"{ONE}timeline/"), 404)
    error(client.get("/api/v1/projects/ads/timeline/"), 404)


def test_a_developer_gets_the_shell_and_log_websockets_per_container(web, developer):
    body = client_for(developer).get(POD).json()

    assert (body["project"], body["cluster"], body["namespace"], body["pod"]) == (
        "ads",
        "member-a",
        "proj-ads",
        "web-local-1a-abc",
    )
    assert body["canExec"] is True and body["phase"] == "Running"
    assert body["containers"] == [
        {
            "name": "app",
            "shell": "ws://testserver/ws/exec/member-a/proj-ads/web-local-1a-abc/app/",
            "logs": "ws://testserver/ws/logs/member-a/proj-ads/web-local-1a-abc/app/",
        }
    ]


def test_the_websocket_urls_resolve_to_the_consumers(web, developer):
    from debugging.routing import websocket_urlpatterns

    container = client_for(developer).get(POD).json()["containers"][0]
    for url in (container["shell"], container["logs"]):
        path = url.removeprefix("ws://testserver/")
        assert any(p.resolve(path) for p in websocket_urlpatterns), path


def test_a_viewer_gets_logs_and_no_shell(web, viewer):
    body = client_for(viewer).get(POD).json()

    assert body["canExec"] is False and body["containers"][0]["shell"] is None
    assert body["containers"][0]["logs"].endswith("/ws/logs/member-a/proj-ads/web-local-1a-abc/app/")


def test_pods_outside_the_callers_projects_or_caches_are_404(web, caches, developer, other_user, other_project):
    from tests.support.factories import fill
    from tests.support.fakes import fake_pod

    fill(caches, "member-a", pods=[fake_pod("ml-1", "proj-ml")])

    error(client_for(other_user).get(POD), 404)  # another tenant's pod
    error(client_for(developer).get("/api/v1/projects/ads/pods/member-a/absent/"), 404)
    error(client_for(developer).get("/api/v1/projects/ads/pods/nowhere/web-local-1a-abc/"), 404)
    error(client_for(developer).get("/api/v1/projects/ads/pods/member-a/ml-1/"), 404)  # not in ads' namespace
    error(client_for(developer).get("/api/v1/projects/ml/pods/member-a/ml-1/"), 404)  # not the developer's project
    assert client_for(other_user).get("/api/v1/projects/ml/pods/member-a/ml-1/").status_code == 200
