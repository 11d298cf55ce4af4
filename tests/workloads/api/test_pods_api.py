"""The pods list API (``/api/v1/projects/<project>/pods/``) through DRF's test client, over the members' caches
filled by hand (``web``): the slim representation with each pod's debugging URLs, the filters, cursor pages,
refusals (400 naming the parameter, 401, another tenant's project 404), and a constant number of queries."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api_host import client_for
from tests.support.factories import fill
from tests.support.fake_host import pod
from tests.support.fakes import fake_pod
from tests.support.workloads_api import error, paths

pytestmark = pytest.mark.django_db
PODS = "/api/v1/projects/ads/pods/"


def running(name: str, workload: str = "web", *, phase: str = "Running", **status: Any) -> dict[str, Any]:
    obj = pod(name, workload)
    obj["status"] = {"phase": phase, **status}
    return obj


def names(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["cluster"], p["name"]) for p in body["results"]]


def test_a_developer_lists_the_projects_pods_with_their_debugging_urls(web, developer):
    body = client_for(developer).get(PODS).json()

    assert body["next"] is None and body["problems"] == []
    assert body["results"] == [
        {
            "name": "web-local-1a-abc",
            "cluster": "member-a",
            "namespace": "proj-ads",
            "workload": "web",
            "kind": "PinApp",
            "phase": "Running",
            "status": "Running",
            "ready": "1/1",
            "restarts": 3,
            "node": "kwok-1",
            "ip": None,
            "started": None,
            "debug": "http://testserver/api/v1/projects/ads/pods/member-a/web-local-1a-abc/",
            "containers": [
                {
                    "name": "app",
                    "image": "",
                    "ready": True,
                    "restarts": 3,
                    "state": "unknown",
                    "reason": "",
                    "startedAt": None,
                    "shell": "ws://testserver/ws/exec/member-a/proj-ads/web-local-1a-abc/app/",
                    "logs": "ws://testserver/ws/logs/member-a/proj-ads/web-local-1a-abc/app/",
                }
            ],
        }
    ]


def test_the_debugging_urls_are_the_ones_the_discovery_endpoint_answers(web, developer, viewer):
    for user in (developer, viewer):
        client = client_for(user)
        listed = client.get(PODS).json()["results"][0]

        discovered = client.get(listed["debug"]).json()

        assert discovered["canExec"] is (user == developer)
        assert [{k: c[k] for k in ("name", "shell", "logs")} for c in listed["containers"]] == discovered["containers"]


def test_container_states_come_from_the_statuses(web, caches, viewer):
    waiting = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}}
    statuses = [{"name": "app", "ready": False, "restartCount": 7, "image": "busybox", "state": waiting}]
    fill(caches, "member-b", pods=[running("web-local-1b-xyz", podIP="10.0.0.9", containerStatuses=statuses)])

    found = client_for(viewer).get(f"{PODS}?cluster=member-b").json()["results"]

    assert [(p["name"], p["status"], p["ready"], p["ip"]) for p in found] == [
        ("web-local-1b-xyz", "CrashLoopBackOff", "0/1", "10.0.0.9")
    ]
    container = found[0]["containers"][0]
    assert (container["state"], container["reason"], container["restarts"]) == ("waiting", "CrashLoopBackOff", 7)
    assert container["shell"] is None  # a viewer: logs only


def test_filters_by_cluster_workload_and_phase(web, caches, viewer):
    fill(caches, "member-b", pods=[running("web-b-1"), running("api-b-1", "api"), running("job-b-1", phase="Failed")])
    fill(caches, "member-a", pods=[running("api-a-1", "api", phase="Pending")])
    client = client_for(viewer)

    every = names(client.get(PODS).json())
    by_cluster = names(client.get(f"{PODS}?cluster=member-b").json())
    by_workload = names(client.get(f"{PODS}?workload=api").json())
    by_phase = names(client.get(f"{PODS}?phase=Running").json())
    nowhere = client.get(f"{PODS}?cluster=absent").json()

    assert every == [
        ("member-a", "api-a-1"),
        ("member-a", "web-local-1a-abc"),
        ("member-b", "api-b-1"),
        ("member-b", "job-b-1"),
        ("member-b", "web-b-1"),
    ]
    assert by_cluster == [("member-b", "api-b-1"), ("member-b", "job-b-1"), ("member-b", "web-b-1")]
    assert by_workload == [("member-a", "api-a-1"), ("member-b", "api-b-1")]
    assert by_phase == [("member-a", "web-local-1a-abc"), ("member-b", "api-b-1"), ("member-b", "web-b-1")]
    assert nowhere["results"] == [] and nowhere["next"] is None


def test_pages_follow_the_cursor_across_clusters_without_gaps_or_repeats(web, caches, viewer):
    fill(caches, "member-a", pods=[running(f"a-{i:02d}") for i in range(7)])
    fill(caches, "member-b", pods=[running(f"b-{i:02d}") for i in range(6)])
    client = client_for(viewer)
    whole = names(client.get(f"{PODS}?limit=500").json())

    seen, url, pages = [], f"{PODS}?limit=4&workload=web", 0
    while url:
        body = client.get(url).json()
        assert len(body["results"]) <= 4
        seen += names(body)
        url, pages = body["next"], pages + 1

    assert seen == whole and len(seen) == 14 and pages == 4
    assert whole == sorted(whole)


def test_other_tenants_pods_never_show(web, caches, developer, other_user, other_project):
    fill(caches, "member-a", pods=[fake_pod("ml-1", "proj-ml")])

    mine = names(client_for(developer).get(PODS).json())
    theirs = names(client_for(other_user).get("/api/v1/projects/ml/pods/").json())

    assert mine == [("member-a", "web-local-1a-abc")]
    assert theirs == [("member-a", "ml-1")]
    body = error(client_for(other_user).get(PODS), 404)
    assert "web-local" not in str(body)
    error(client_for(developer).get("/api/v1/projects/ml/pods/"), 404)
    error(client_for(developer).get("/api/v1/projects/absent/pods/"), 404)


def test_bad_parameters_are_400_naming_them_and_anonymous_is_401(web, viewer):
    client = client_for(viewer)

    assert set(paths(client.get(f"{PODS}?phase=Sleeping"))) == {"phase"}
    assert set(paths(client.get(f"{PODS}?cursor=no-slash"))) == {"cursor"}
    assert set(paths(client.get(f"{PODS}?cursor=a/b/c"))) == {"cursor"}
    assert set(paths(client.get(f"{PODS}?limit=0"))) == {"limit"}
    assert set(paths(client.get(f"{PODS}?limit=501"))) == {"limit"}
    error(client_for(None).get(PODS), 401)


def test_a_page_costs_the_same_queries_whatever_the_number_of_pods(web, caches, viewer, django_assert_num_queries):
    client = client_for(viewer)
    client.get(PODS)  # the session and throttle warm-up are not the list's
    with django_assert_num_queries(1) as few:  # the project with the caller's role (for the shell URLs)
        client.get(PODS)
    fill(caches, "member-b", pods=[running(f"b-{i:03d}") for i in range(300)])

    with django_assert_num_queries(len(few.captured_queries)):
        body = client.get(f"{PODS}?limit=200").json()

    assert len(body["results"]) == 200 and body["next"]


def test_the_schema_documents_the_endpoint_with_its_refusals(web, viewer):
    schema = client_for(viewer).get("/api/schema/?format=json").json()

    operation = schema["paths"]["/api/v1/projects/{project}/pods/"]["get"]
    assert operation["operationId"] == "project_pods_list"
    assert {"200", "400", "401", "403", "404", "429"} <= set(operation["responses"])
    parameters = {p["name"] for p in operation["parameters"]}
    assert parameters >= {"project", "cluster", "workload", "phase", "cursor", "limit"}
    assert operation["responses"]["200"]["content"]["application/json"]["examples"]


def test_the_body_is_exactly_the_serializers_shape(web, caches, developer):
    from workloads.api.pods import PodPageSerializer

    waiting = {"waiting": {"reason": "ContainerCreating"}}
    fill(caches, "member-b", pods=[running("b-1", containerStatuses=[{"name": "app", "state": waiting}])])
    body = client_for(developer).get(f"{PODS}?limit=1").json()

    assert body["next"] and body["results"]
    assert PodPageSerializer(body).data == body


def test_with_a_token_a_page_is_two_queries_and_admins_are_told_apart(
    web, developer, admin_user, other_user, other_project, django_assert_num_queries
):
    """The token, its user and whether they are a platform admin in one query; the project with the caller's role in
    another. An admin (by group) sees every tenant's pods with shells; a developer of ``ads`` sees ``ml`` as a 404."""
    from rest_framework.test import APIClient

    from accounts.services import create_api_token

    def token_client(user):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=user, name='t', days=1)[1]}")
        client.get(PODS)  # the token's last-used stamp and the throttles' warm-up are not the page's
        return client

    as_developer, as_admin = token_client(developer), token_client(admin_user)
    with django_assert_num_queries(2):
        body = as_developer.get(PODS).json()

    assert body["results"][0]["containers"][0]["shell"]
    error(as_developer.get("/api/v1/projects/ml/pods/"), 404)
    assert as_admin.get("/api/v1/projects/ml/pods/").status_code == 200
    assert as_admin.get(PODS).json()["results"][0]["containers"][0]["shell"]


def test_a_pod_is_built_once_per_version_and_caller_kind_and_the_page_is_the_bytes_drf_gives(
    web, caches, developer, viewer, monkeypatch
):
    """A polling client pays once per pod change: each pod's representation and JSON are remembered by its version
    and by what the links add (whether the caller may exec), then spliced into the page."""
    from rest_framework.renderers import JSONRenderer

    from workloads.api import pods as pods_api

    built = []
    real_pod = pods_api.pod
    monkeypatch.setattr(pods_api, "pod", lambda *a: built.append(a[2]["metadata"]["name"]) or real_pod(*a))
    versioned = [running(f"b-{i}") for i in range(3)]
    for i, obj in enumerate(versioned):
        obj["metadata"]["resourceVersion"] = str(100 + i)
    member = fill(caches, "member-b", pods=versioned)
    as_developer, as_viewer = client_for(developer), client_for(viewer)
    url = f"{PODS}?cluster=member-b"

    first, again = as_developer.get(url), as_developer.get(url)
    assert first.content == again.content == JSONRenderer().render(first.json())
    assert sorted(built) == ["b-0", "b-1", "b-2"]  # asked twice, built once
    assert all(c["shell"] for p in first.json()["results"] for c in p["containers"])

    seen_by_viewer = as_viewer.get(url).json()["results"]  # not the developer's remembered pods: no shell
    assert all(c["shell"] is None for p in seen_by_viewer for c in p["containers"])

    changed = running("b-1", phase="Failed")
    changed["metadata"]["resourceVersion"] = "200"
    member.put("pods", changed)
    after = {p["name"]: p["phase"] for p in as_developer.get(url).json()["results"]}
    assert after == {"b-0": "Running", "b-1": "Failed", "b-2": "Running"}
