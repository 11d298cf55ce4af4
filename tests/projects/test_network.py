"""Network openings: owners replace them (validated, audited, every cluster told), every member reads them and
what the project's NetworkPolicies admit; developers and viewers cannot change them, another tenant's is a 404."""

from __future__ import annotations

import pytest

from base.models import AuditEvent
from clusters.models import Cluster
from pincompute.netpol import ISOLATION_POLICY, OPENINGS_POLICY
from projects.network_plan import plan_of
from projects.provisioning import manifests_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/projects/{}/network/"
OPEN_8080 = {"openings": [{"port": 8080, "protocol": "TCP", "projects": ["ml"]}, {"port": 443, "ingress": True}]}


@pytest.fixture
def ml_visible(other_project, owner):
    """``ml`` (another team's) made visible to dev1 as a viewer there: the project an opening may name."""
    from projects.members import MemberInput, set_member

    set_member(other_project, MemberInput("user", owner.username, "viewer"), actor=other_project.memberships.get().user)
    return other_project


def put(api_client, user, name, body):
    api_client.force_authenticate(user)
    return api_client.put(URL.format(name), body, format="json")


def test_an_owner_opens_ports_and_the_member_policies_follow(api_client, project, owner, ml_visible):
    project.refresh_from_db()
    generation = project.generation

    answer = put(api_client, owner, "ads", OPEN_8080)

    assert answer.status_code == 200, answer.content
    assert answer.json()["openings"] == [
        {"port": 8080, "protocol": "TCP", "projects": ["ml"], "ingress": False},
        {"port": 443, "protocol": "TCP", "projects": [], "ingress": True},
    ]
    policies = {p["name"]: p["admits"] for p in answer.json()["policies"]}
    assert policies[OPENINGS_POLICY] == ["TCP 443 from the ingress", "TCP 8080 from proj-ml"]
    assert "every port from the project's own pods" in policies[ISOLATION_POLICY]
    project.refresh_from_db()
    assert project.generation == generation + 1  # every cluster is told
    member = Cluster.objects.get(name="member-a")
    openings = next(m for m in manifests_for(project, member) if m["metadata"]["name"] == OPENINGS_POLICY)
    assert [r["ports"] for r in openings["spec"]["ingress"]] == [
        [{"port": 443, "protocol": "TCP"}],
        [{"port": 8080, "protocol": "TCP"}],
    ]
    event = AuditEvent.objects.get(action="project.network.set")
    assert (event.actor_name, event.project_name, event.before) == ("dev1", "ads", {"openings": []})
    assert event.after["openings"][0]["port"] == 8080


def test_every_member_reads_the_openings(api_client, project, viewer):
    api_client.force_authenticate(viewer)

    answer = api_client.get(URL.format("ads"))

    assert answer.status_code == 200
    assert answer.json()["openings"] == [] and answer.json()["platform_namespaces"] == ["monitoring"]


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_cannot_change_openings_even_with_a_bad_body(api_client, project, request, who):
    for body in (OPEN_8080, {"openings": [{"port": 0}]}):
        answer = put(api_client, request.getfixturevalue(who), "ads", body)
        assert answer.status_code == 403, answer.content
    project.refresh_from_db()
    assert project.network_openings == [] and not AuditEvent.objects.filter(action="project.network.set").exists()


def test_another_tenants_project_is_not_found(api_client, project, other_project, owner):
    assert put(api_client, owner, "ml", OPEN_8080).status_code == 404
    assert api_client.get(URL.format("ml")).status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"openings": [{"port": 0, "ingress": True}]}, "openings[0].port"),
        ({"openings": [{"port": 65536, "ingress": True}]}, "openings[0].port"),
        ({"openings": [{"port": "80", "ingress": True}]}, "openings[0].port"),
        ({"openings": [{"port": True, "ingress": True}]}, "openings[0].port"),
        ({"openings": [{"port": 80, "protocol": "ICMP", "ingress": True}]}, "openings[0].protocol"),
        ({"openings": [{"port": 80}]}, "openings[0].projects"),
        ({"openings": [{"port": 80, "projects": ["nope"]}]}, "openings[0].projects"),
        ({"openings": [{"port": 80, "projects": ["ads"]}]}, "openings[0].projects"),
        ({"openings": [{"port": 80, "projects": "ml"}]}, "openings[0].projects"),
        ({"openings": [{"port": 80, "ingress": "yes"}]}, "openings[0].ingress"),
        ({"openings": [{"port": 80, "ingress": True, "from": "x"}]}, "openings[0].from"),
        ({"openings": [80]}, "openings[0]"),
        ({"openings": {"port": 80}}, "openings"),
        ({}, "openings"),
        ({"openings": [{"port": 80, "ingress": True}] * 51}, "openings"),
    ],
)
def test_bad_openings_name_the_field_and_change_nothing(api_client, project, owner, body, field):
    answer = put(api_client, owner, "ads", body)

    assert answer.status_code == 400, answer.content
    assert field in answer.content.decode()
    project.refresh_from_db()
    assert project.network_openings == []


def test_a_project_the_owner_cannot_see_is_refused_like_a_missing_one(api_client, project, other_project, owner):
    answer = put(api_client, owner, "ads", {"openings": [{"port": 80, "projects": ["ml"]}]})

    assert answer.status_code == 400 and "no active project 'ml' you can see" in answer.content.decode()


def test_the_plan_names_the_opened_projects_by_namespace(api_client, project, owner, ml_visible):
    put(api_client, owner, "ads", OPEN_8080)
    project.refresh_from_db()

    assert {o.projects for o in plan_of(project).openings} == {("proj-ml",), ()}


def test_the_project_page_shows_the_policies_and_an_owner_opens_and_closes_a_port(client, project, owner, ml_visible):
    client.force_login(owner)
    page = client.get("/projects/ads/").content.decode()
    assert 'data-policy="pincompute-isolation"' in page and "every port from the project&#x27;s own pods" in page

    opened = client.post(
        "/projects/ads/network/", {"port": "8080", "protocol": "UDP", "projects": "ml"}, HTTP_HX_REQUEST="true"
    )

    assert opened.status_code == 200 and 'data-opening="UDP/8080"' in opened.content.decode()
    assert "UDP 8080 from proj-ml" in opened.content.decode()
    assert "provisioning-changed" in opened.headers["HX-Trigger"]
    closed = client.post("/projects/ads/network/", {"op": "remove", "index": "0"}, HTTP_HX_REQUEST="true")
    assert closed.status_code == 200 and "data-opening=" not in closed.content.decode()
    assert AuditEvent.objects.filter(action="project.network.set").count() == 2


def test_without_htmx_an_opening_redirects_to_the_section(client, project, owner):
    client.force_login(owner)

    answer = client.post("/projects/ads/network/", {"port": "443", "ingress": "1"})

    assert answer.status_code == 302 and answer.headers["Location"] == "/projects/ads/#network"
    project.refresh_from_db()
    assert project.network_openings == [{"port": 443, "protocol": "TCP", "projects": [], "ingress": True}]


def test_the_page_names_a_bad_port_and_changes_nothing(client, project, owner):
    client.force_login(owner)

    answer = client.post("/projects/ads/network/", {"port": "70000", "ingress": "1"}, HTTP_HX_REQUEST="true")

    assert answer.status_code == 400 and "port number from 1 to 65535" in answer.content.decode()
    project.refresh_from_db()
    assert project.network_openings == []


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_see_the_section_without_controls_and_cannot_post(client, project, request, who):
    client.force_login(request.getfixturevalue(who))

    section = client.get("/projects/ads/network/", HTTP_HX_REQUEST="true").content.decode()
    refused = client.post("/projects/ads/network/", {"port": "80", "ingress": "1"}, HTTP_HX_REQUEST="true")

    assert 'data-policy="pincompute-openings"' in section and "Open port" not in section
    assert refused.status_code == 403
    project.refresh_from_db()
    assert project.network_openings == []


def test_another_tenants_network_section_is_not_found(client, project, other_project, owner):
    client.force_login(owner)
    assert client.get("/projects/ml/network/").status_code == 404
    assert client.post("/projects/ml/network/", {"port": "80", "ingress": "1"}).status_code == 404


def test_the_platform_namespaces_are_a_setting(project, settings):
    settings.NETWORK_PLATFORM_NAMESPACES = ["prometheus", "kube-system"]
    member = Cluster.objects.get(name="member-a")

    isolation = next(m for m in manifests_for(project, member) if m["metadata"]["name"] == ISOLATION_POLICY)

    peers = [p["namespaceSelector"]["matchLabels"] for p in isolation["spec"]["ingress"][0]["from"][1:]]
    assert peers == [{"kubernetes.io/metadata.name": "kube-system"}, {"kubernetes.io/metadata.name": "prometheus"}]
