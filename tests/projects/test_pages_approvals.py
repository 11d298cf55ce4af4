"""Platform admins' pages: the quota request queue (approve, reject with a reason, the decided history, the
count in the navigation) and the forced decrease (preview naming the workloads, then confirm)."""

from __future__ import annotations

import html
import re

import pytest

from base.models import AuditEvent
from projects.grants import QuotaInput
from projects.models import QuotaRequest, TierQuota
from projects.quota import change_quota
from tests.support.factories import HOST, fill, make_cluster, make_pool, workload_cr

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def text(response) -> str:
    return html.unescape(response.content.decode())


def feedback(response) -> list[str]:
    found = re.findall(r'class="invalid-feedback[^"]*"[^>]*>(.*?)</div>', response.content.decode(), re.S)
    return [html.unescape(re.sub(r"\s+", " ", m)).strip() for m in found]


@pytest.fixture
def asked(project, owner):
    """A pending request of ads: Reserved cpu 0 -> 12 (beyond the auto-approve limit of 8)."""
    return change_quota(project, "reserved", QuotaInput(cpu="12", memory="8Gi"), actor=owner, reason="launch").request


@pytest.fixture
def admin(client, admin_user):
    client.force_login(admin_user)
    return client


def test_the_queue_lists_pending_requests_with_before_after_reason_and_requester(asked, admin, owner):
    page = text(admin.get("/projects/requests/"))

    row = page[page.index(f'id="request-{asked.pk}"') :]
    assert "ads" in row and "Reserved" in row and "launch" in row and owner.username in row
    assert re.search(r"CPU 0 .*?<strong>12</strong>", row, re.S)
    assert "Nothing decided yet." in page


def test_the_navigation_shows_admins_the_pending_count(asked, admin, client, owner):
    admin_nav = text(admin.get("/"))
    client.force_login(owner)
    owner_nav = text(client.get("/"))

    assert re.search(r'id="nav-quota-requests"[^>]*>1</span>', admin_nav)
    assert "/projects/requests/" not in owner_nav


def test_approving_applies_the_grant_and_moves_it_to_the_history(asked, admin, admin_user, monkeypatch):
    changed = []
    monkeypatch.setattr("projects.provisioning.project_changed", lambda p: changed.append(p.name))

    response = admin.post(f"/projects/requests/{asked.pk}/approve/", {f"r{asked.pk}-reason": "fits"}, **HX)

    page = text(response)
    assert response.status_code == 200 and "<html" not in page
    assert f"Approved #{asked.pk}" in page and "No request is waiting" in page
    assert f'data-request="{asked.pk}" data-state="applied"' in page and "“fits”" in page
    assert re.search(r'id="nav-quota-requests" hx-swap-oob="true"[^>]*></span>', page)  # the count, out of band
    assert TierQuota.objects.get(project=asked.project, tier="reserved").cpu_milli == 12000
    assert changed == ["ads"]


def test_rejecting_needs_a_reason_beside_the_field(asked, admin):
    response = admin.post(f"/projects/requests/{asked.pk}/reject/", {f"r{asked.pk}-reason": " "}, **HX)

    assert response.status_code == 400
    assert feedback(response) == ["Say why the request is rejected; the project's owners will read it."]
    assert QuotaRequest.objects.get(pk=asked.pk).state == "pending"


def test_rejecting_with_a_reason_records_who_and_why(asked, admin, admin_user):
    admin.post(f"/projects/requests/{asked.pk}/reject/", {f"r{asked.pk}-reason": "no room"}, **HX)

    decided = QuotaRequest.objects.get(pk=asked.pk)
    assert (decided.state, decided.decided_by, decided.decision_reason) == ("rejected", admin_user, "no room")


def test_approving_beyond_the_pools_now_is_refused_inline_with_the_numbers(asked, admin, admin_user, project):
    from clusters.models import ClusterPool

    ClusterPool.objects.filter(kind="reserved").update(cpu_milli=4000)  # the pools shrank meanwhile

    response = admin.post(f"/projects/requests/{asked.pk}/approve/", **HX)

    assert response.status_code == 409
    assert "left in the region's Reserved pools" in text(response)
    assert QuotaRequest.objects.get(pk=asked.pk).state == "pending"


def test_deciding_twice_is_a_conflict(asked, admin):
    admin.post(f"/projects/requests/{asked.pk}/approve/", **HX)

    response = admin.post(f"/projects/requests/{asked.pk}/reject/", {f"r{asked.pk}-reason": "late"}, **HX)

    assert response.status_code in (404, 409)  # no longer in the queue
    assert QuotaRequest.objects.get(pk=asked.pk).state == "applied"


@pytest.mark.parametrize("url", ["/projects/requests/", "/projects/ads/quota/force/"])
def test_the_admin_pages_are_refused_to_owners(asked, client, owner, url):
    client.force_login(owner)

    assert client.get(url).status_code == 403


def test_an_owner_cannot_decide_their_own_request(asked, client, owner):
    client.force_login(owner)

    response = client.post(f"/projects/requests/{asked.pk}/approve/", **HX)

    assert response.status_code == 403 and QuotaRequest.objects.get(pk=asked.pk).state == "pending"


# --- forced decrease ------------------------------------------------------------------------------------


@pytest.fixture
def busy(project, admin_user, caches):
    """ads holds OnDemand 8 cpu; two PinApps request 2 cpu each (web the older)."""
    change_quota(project, "ondemand", QuotaInput(cpu="8", memory="16Gi", pods="10"), actor=admin_user)
    fill(
        caches,
        HOST,
        workload_cr("web", replicas=2, cpu="1", memory="1Gi", created="2026-01-01T00:00:00Z"),
        workload_cr("batch", replicas=2, cpu="1", memory="1Gi", created="2026-02-01T00:00:00Z"),
    )
    return project


def force(client, go: str, **fields: str):
    data = {"tier": "ondemand", "cpu": "8", "memory": "16Gi", "gpu": "0", "pods": "10", "go": go, **fields}
    return client.post("/projects/ads/quota/force/", data, **HX)


def test_the_preview_names_the_workloads_that_would_no_longer_fit(busy, admin):
    response = force(admin, "preview", cpu="3")

    page = text(response)
    assert response.status_code == 200 and 'id="force-preview"' in page
    assert 'data-affected="PinApp/batch"' in page and 'data-affected="PinApp/web"' not in page
    assert "They keep running" in page
    token = re.search(r'name="confirm" value="([0-9a-f]+)"', page).group(1)
    assert len(token) == 20
    assert TierQuota.objects.get(project=busy, tier="ondemand").cpu_milli == 8000  # a preview changes nothing


def test_the_preview_of_a_preemptible_decrease_says_the_federation_reclaims_them(project, admin_user, caches, admin):
    change_quota(project, "preemptible", QuotaInput(cpu="6", memory="16Gi", pods="10"), actor=admin_user)
    fill(
        caches,
        HOST,
        workload_cr("web", tier="Preemptible", created="2026-01-01T00:00:00Z"),
        workload_cr("batch", tier="Preemptible", created="2026-02-01T00:00:00Z"),
    )

    page = text(force(admin, "preview", tier="preemptible", cpu="3", memory="16Gi"))

    assert 'data-affected="PinApp/batch"' in page and "The federation reclaims them" in page
    assert "They keep running" not in page


def test_confirming_needs_a_reason_and_then_lowers_the_grant(busy, admin):
    token = re.search(r'name="confirm" value="([0-9a-f]+)"', text(force(admin, "preview", cpu="3"))).group(1)

    refused = force(admin, "confirm", cpu="3", confirm=token)
    done = force(admin, "confirm", cpu="3", confirm=token, reason="pool maintenance")

    assert refused.status_code == 400 and feedback(refused) == ["Say why; the project's owners will read it."]
    assert done.status_code == 200 and done["HX-Redirect"] == "/projects/ads/#quota"
    assert TierQuota.objects.get(project=busy, tier="ondemand").cpu_milli == 3000
    event = AuditEvent.objects.get(action="project.quota.force_decrease")
    assert "PinApp/batch" in event.summary


def test_confirming_what_was_not_previewed_is_a_conflict_and_shows_the_new_preview(busy, admin):
    token = re.search(r'name="confirm" value="([0-9a-f]+)"', text(force(admin, "preview", cpu="5"))).group(1)

    response = force(admin, "confirm", cpu="3", confirm=token, reason="x")

    page = text(response)
    assert response.status_code == 409 and "preview again" in page
    assert 'data-affected="PinApp/batch"' in page
    assert re.search(r'name="confirm" value="([0-9a-f]+)"', page).group(1) != token
    assert TierQuota.objects.get(project=busy, tier="ondemand").cpu_milli == 8000


def test_a_forced_change_only_decreases(busy, admin):
    response = force(admin, "preview", cpu="9")

    assert response.status_code == 400 and "only decreases" in " ".join(feedback(response))


def test_the_forced_decrease_page_starts_from_the_current_grant_of_the_tier(busy, admin):
    page = text(admin.get("/projects/ads/quota/force/?tier=ondemand", **HX))

    assert 'value="8"' in page and 'value="16Gi"' in page and "<html" not in page


def test_the_pools_of_a_new_member_count_in_the_queue_headroom(asked, admin):
    make_pool(make_cluster("member-c", zone="local-1c"), "reserved", 8)

    page = text(admin.get("/projects/requests/"))

    assert "72 cpu" in page  # 40 + 24 + 8, nothing granted yet
