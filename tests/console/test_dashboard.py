"""The dashboard answers "what needs me?": a new user's first steps; a developer's workloads that are waiting,
degraded or refused with the cause, quota used against granted per tier, their open requests and their projects'
activity (not another project's); a platform admin's clusters needing attention and the approval queue."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from base import audit
from projects.members import MemberInput, set_member
from projects.models import QuotaRequest
from tests.support.factories import make_cluster, make_quota, workload_cr
from tests.support.fakes import FilledCache

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.fixture
def workloads(monkeypatch, admin_user, user):
    """Project ads (``user`` a developer) with a running, a waiting and a degraded workload on the host; project
    ml, which ``user`` is not in, with a waiting one."""
    quota = make_quota("ondemand", 8, project="ads", mem_gib=32)
    set_member(quota.project, MemberInput("user", user.username, "developer"), actor=admin_user)
    make_quota("ondemand", 8, project="ml")
    degraded = workload_cr("ranker", cpu="1", replicas=2)
    degraded["status"]["phase"] = "Running"
    degraded["status"]["conditions"].append(
        {"type": "Degraded", "status": "True", "reason": "MemberRefused", "message": "member-b refused its pods"}
    )
    host = FilledCache(
        {
            "pinapps": [
                workload_cr("web", cpu="2", replicas=1)
                | {"status": {"phase": "Running", **workload_cr("x")["status"]}},
                workload_cr("batch", cpu="64", replicas=1, admitted=False),
                degraded,
                workload_cr("other", project="ml", admitted=False),
            ]
        }
    )
    monkeypatch.setattr("clusters.runtime.host_cache", lambda: host)
    monkeypatch.setattr("clusters.runtime.member_caches", lambda: {})
    return quota.project


def test_a_new_user_gets_the_first_steps(user_client):
    response = user_client.get("/")

    page = response.content.decode()
    assert response.status_code == 200 and 'id="first-steps"' in page
    for link in ('href="/projects/new/"', 'href="/projects/tutorial/"', 'href="/tokens/"'):
        assert link in page
    assert "needing attention" not in page


def test_a_developer_sees_what_is_waiting_or_degraded_with_why(workloads, user_client):
    response = user_client.get("/")

    page = text(response)
    assert 'id="first-steps"' not in response.content.decode()
    assert "Degraded ranker" in page and "member-b refused its pods" in page
    assert "Waiting batch" in page and "OnDemand cpu: over the grant" in page
    assert page.index("Degraded ranker") < page.index("Waiting batch")  # broken before waiting
    assert " web " not in page and "other" not in page  # fine, or another project's


def test_a_developer_sees_quota_used_against_granted_and_a_chart(workloads, user_client):
    response = user_client.get("/")

    row = re.search(r'<tr data-use="ads/ondemand">(.*?)</tr>', response.content.decode(), re.S)
    assert row is not None
    # web (2) and ranker (2 x 1) hold 4 of the 8 granted, and the runtime's sidecar 150m in each of their 3 pods, as
    # admission counts them; batch waits and holds nothing
    assert "4450m / 8" in row.group(1)
    assert "1 waiting" in row.group(1)
    assert 'id="quota-use-chart"' in response.content.decode()


def test_a_developer_sees_their_open_requests_and_their_projects_activity_only(
    workloads, user, user_client, admin_user
):
    QuotaRequest.objects.create(project=workloads, tier="ondemand", requested_by=user, previous={}, requested={})
    audit.record("workload.create", actor=admin_user, target_kind="PinApp", target_name="web", project="ads")
    audit.record("workload.create", actor=admin_user, target_kind="PinApp", target_name="secret", project="ml")

    page = text(user_client.get("/"))

    assert "ads · ondemand: waiting for a platform admin" in page
    assert "PinApp/web" in page and "PinApp/secret" not in page


def test_the_attention_panel_refreshes_on_its_own(workloads, user_client):
    response = user_client.get("/dashboard/attention/")

    assert response.status_code == 200 and b"<html" not in response.content
    assert b"member-b refused its pods" in response.content and b'hx-trigger="every 15s"' in response.content


def test_an_admin_sees_clusters_needing_attention_and_the_queue(workloads, admin_client_, user):
    now = timezone.now()
    make_cluster("member-a", healthy=True, last_probe_at=now)
    make_cluster(
        "member-b", healthy=False, last_probe_at=now, last_error="connection refused", host_sync_error="422: x"
    )
    QuotaRequest.objects.create(project=workloads, tier="ondemand", requested_by=user, previous={}, requested={})

    page = text(admin_client_.get("/"))

    attention = page[page.index("Clusters needing attention") : page.index("Quota requests to decide")]
    assert "member-b Unreachable" in attention and "unreachable: connection refused" in attention
    assert "not on the host as saved: 422: x" in attention
    assert "member-a" not in attention
    assert "Quota requests to decide 1" in page and f"ads · ondemand · by {user.username}" in page
