"""The Projects API's quota, role by role: every member reads the overview, owners change grants (at once
or by request), platform admins force decreases after a preview and decide requests."""

from __future__ import annotations

import pytest

from base.models import AuditEvent
from clusters.models import Cluster
from pincompute.quantity import format_cpu, parse_cpu
from projects.grants import QuotaInput
from projects.models import ClusterProvisioning, Project, QuotaRequest, TierQuota
from projects.quota import change_quota
from tests.support.factories import HOST, fill, workload_cr

pytestmark = pytest.mark.django_db


def grant(project: Project, tier: str) -> dict[str, int]:
    q = TierQuota.objects.get(project=project, tier=tier)
    return {"cpu_milli": q.cpu_milli, "memory_bytes": q.memory_bytes, "gpu": q.gpu, "pods": q.pods}


def as_(api_client, user):
    api_client.force_authenticate(user)
    return api_client


# --- quota ------------------------------------------------------------------------------------------------


def test_every_member_reads_the_quota_overview_with_provisioning(api_client, project, owner, viewer, caches):
    change_quota(project, "ondemand", QuotaInput(cpu="8", memory="16Gi", pods="10"), actor=owner)
    fill(caches, HOST, workload_cr("ranker", replicas=2, cpu="1", memory="1Gi"))
    ClusterProvisioning.objects.create(
        project=project,
        cluster=Cluster.objects.get(name="member-a"),
        state="ready",
        observed_generation=project.generation,
    )

    response = as_(api_client, viewer).get("/api/v1/projects/ads/quota/")

    assert response.status_code == 200
    body = response.json()
    assert [t["tier"] for t in body["tiers"]] == ["reserved", "ondemand", "preemptible"]
    ondemand = body["tiers"][1]
    assert ondemand["grant"] == {"cpu": "8", "memory": "16Gi", "gpu": "0", "pods": "10"}
    used = parse_cpu(ondemand["usage"]["cpu"])  # two replicas of 1 cpu, plus the runtime profile's sidecars
    assert used >= 2000 and ondemand["usage"]["pods"] == "2"
    assert ondemand["headroom"]["cpu"] == format_cpu(8000 - used) and ondemand["headroom"]["pods"] == "8"
    assert ondemand["region"]["capacity"]["cpu"] == "32" and ondemand["region"]["headroom"]["cpu"] == "24"
    assert {c["cluster"] for c in ondemand["clusters"]} == {"member-a", "member-b"}
    assert ondemand["pending_request"] is None
    assert [w["name"] for w in body["workloads"]] == ["ranker"] and body["problems"] == []
    assert body["workloads"][0] | {"requests": None} == {
        "name": "ranker",
        "kind": "PinApp",
        "tier": "ondemand",
        "requests": None,
        "clusters": ["member-a"],
        "admitted": True,
        "waiting": "",
    }
    assert [(p["cluster"], p["state"]) for p in body["provisioning"]] == [("member-a", "ready")]


def test_an_owners_change_within_the_limit_applies_at_once(api_client, project, owner):
    response = as_(api_client, owner).put(
        "/api/v1/projects/ads/quota/ondemand/", {"cpu": "8", "memory": "32Gi", "gpu": "0", "pods": "50"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["applied"] is True and response.json()["request"] is None
    assert response.json()["after"] == {"cpu": "8", "memory": "32Gi", "gpu": "0", "pods": "50"}
    assert grant(project, "ondemand")["cpu_milli"] == 8000


def test_an_owners_change_beyond_the_limit_is_a_pending_request(api_client, project, owner):
    response = as_(api_client, owner).put(
        "/api/v1/projects/ads/quota/reserved/",
        {"cpu": "500m", "memory": "0", "gpu": "2", "pods": "4", "reason": "training"},
        format="json",
    )

    assert response.status_code == 202
    body = response.json()
    assert body["applied"] is False and body["request"]["state"] == "pending"
    assert body["request"]["requested"] == {"cpu": "500m", "memory": "0", "gpu": "2", "pods": "4"}
    assert body["request"]["reason"] == "training"
    assert response["Location"].endswith(f"/api/v1/quota-requests/{body['request']['id']}/")
    assert grant(project, "reserved")["gpu"] == 0


def test_a_platform_admins_change_has_no_auto_approve_limit(api_client, project, admin_user):
    response = as_(api_client, admin_user).put(
        "/api/v1/projects/ads/quota/reserved/", {"cpu": "40", "memory": "0", "gpu": "2", "pods": "0"}, format="json"
    )

    assert response.status_code == 200 and grant(project, "reserved")["gpu"] == 2


def test_a_platform_admin_forces_a_decrease_after_the_preview(api_client, project, admin_user, caches):
    change_quota(project, "ondemand", QuotaInput(cpu="16", memory="16Gi", pods="10"), actor=admin_user)
    fill(caches, HOST, workload_cr("old", replicas=2, created="2026-11-01T00:00:00Z"))
    fill(caches, HOST, workload_cr("new", replicas=4, created="2026-11-20T00:00:00Z"))
    smaller = {"cpu": "3", "memory": "16Gi", "gpu": "0", "pods": "10"}
    client = as_(api_client, admin_user)

    preview = client.post("/api/v1/projects/ads/quota/ondemand/forced-decrease/preview/", smaller, format="json")

    assert preview.status_code == 200
    assert [(w["name"], w["kind"], w["tier"]) for w in preview.json()["workloads"]] == [("new", "PinApp", "ondemand")]
    assert grant(project, "ondemand")["cpu_milli"] == 16000
    done = client.post(
        "/api/v1/projects/ads/quota/ondemand/forced-decrease/",
        {**smaller, "reason": "reclaim", "confirm": preview.json()["token"]},
        format="json",
    )
    assert done.status_code == 200 and done.json()["new"]["cpu"] == "3"
    assert grant(project, "ondemand")["cpu_milli"] == 3000
    assert AuditEvent.objects.get(action="project.quota.force_decrease").summary.startswith("reclaim")


# --- quota requests ---------------------------------------------------------------------------------------


@pytest.fixture
def asked(project, other_project, owner, other_user) -> tuple[QuotaRequest, QuotaRequest]:
    """A pending request in ``ads`` (dev1's) and one in ``ml`` (dev2's)."""
    mine = change_quota(project, "reserved", QuotaInput(cpu="40"), actor=owner).request
    theirs = change_quota(other_project, "reserved", QuotaInput(gpu="1"), actor=other_user).request
    return mine, theirs


@pytest.mark.parametrize("who", ["owner", "viewer"])
def test_members_see_their_projects_requests_only(api_client, asked, request, who):
    mine, _ = asked
    client = as_(api_client, request.getfixturevalue(who))

    listed = client.get("/api/v1/quota-requests/").json()
    one = client.get(f"/api/v1/quota-requests/{mine.pk}/")

    assert [(r["id"], r["project"]) for r in listed["results"]] == [(mine.pk, "ads")]
    assert one.status_code == 200 and one.json()["requested"]["cpu"] == "40"


def test_platform_admins_see_every_request_and_filter_by_state_and_project(api_client, asked, admin_user):
    mine, theirs = asked
    client = as_(api_client, admin_user)
    client.post(f"/api/v1/quota-requests/{theirs.pk}/reject/", {"reason": "no"}, format="json")

    every = client.get("/api/v1/quota-requests/").json()
    pending = client.get("/api/v1/quota-requests/?state=pending").json()
    of_ml = client.get("/api/v1/quota-requests/?project=ml").json()

    assert every["count"] == 2
    assert [r["id"] for r in pending["results"]] == [mine.pk]
    assert [(r["id"], r["state"]) for r in of_ml["results"]] == [(theirs.pk, "rejected")]


def test_a_platform_admin_approves_a_request(api_client, asked, project, admin_user):
    mine, _ = asked

    response = as_(api_client, admin_user).post(
        f"/api/v1/quota-requests/{mine.pk}/approve/", {"reason": "planned"}, format="json"
    )

    assert response.status_code == 200
    assert (response.json()["state"], response.json()["decided_by"], response.json()["decision_reason"]) == (
        "applied",
        "ops",
        "planned",
    )
    assert grant(project, "reserved")["cpu_milli"] == 40000


def test_a_platform_admin_rejects_a_request_with_a_reason(api_client, asked, project, admin_user):
    mine, _ = asked

    response = as_(api_client, admin_user).post(
        f"/api/v1/quota-requests/{mine.pk}/reject/", {"reason": "use OnDemand"}, format="json"
    )

    assert response.status_code == 200
    assert (response.json()["state"], response.json()["decision_reason"]) == ("rejected", "use OnDemand")
    assert grant(project, "reserved")["cpu_milli"] == 0
