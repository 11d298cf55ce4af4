"""Why a workload is not running, atop its page and in the list; going back to a revision from the page (the diff
first, then the rollback, audited) and through the API; refused to viewers (403) and other tenants (404)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from base.models import AuditEvent
from tests.support.fake_host import HX, URL, text

pytestmark = pytest.mark.django_db
API = "/api/v1/projects/ads/workloads/PinApp/web/"


def test_the_page_says_why_at_the_top_and_the_list_gives_a_waiting_workload_its_cause(web, owner, client):
    client.force_login(owner)
    page = text(client.get(URL))
    listing = text(client.get("/workloads/"))

    status = page.index('id="workload-status"')
    assert page.index('data-diagnosis="MemberUnreachable"') > status
    assert page.index('data-diagnosis="MemberUnreachable"') < page.index('class="card"', status)
    assert "Member member-b cannot be reached since 2026-11-22T00:03:00Z: 1 replicas there are not known." in page
    assert 'href="/clusters/member-b/" data-next-link' in page
    waiting = listing[listing.index('data-workload="ads/PinApp/waiting"') :]
    assert 'data-cause="WaitingForQuota"' in waiting[: waiting.index("</tr>")]
    # the grant's cpu has room (the fixture's condition says otherwise): its own message, with the queue place
    assert "Waiting for quota: OnDemand cpu: over the grant (1st in the OnDemand queue)." in waiting


def test_a_rollback_is_previewed_then_written_back_and_audited(web, developer, client):
    client.force_login(developer)
    before = web.objects[("PinApp", "proj-ads", "web")]
    preview = client.get(f"{URL}rollback/?revision=1", **HX)

    assert preview.status_code == 200 and "data-rollback-diff" in text(preview)
    assert "spec.replicas" in text(preview) and "Roll back to revision #1" in text(preview)
    assert web.objects[("PinApp", "proj-ads", "web")] == before  # a preview writes nothing

    done = client.post(f"{URL}rollback/", {"revision": "1", "version": before["metadata"]["generation"]}, **HX)

    assert done.status_code == 200 and done["HX-Trigger"] == "workload-changed"
    assert "Rolled PinApp web back to revision 1" in text(done)
    after = web.objects[("PinApp", "proj-ads", "web")]
    assert after["spec"]["replicas"] == 1 and after["spec"]["template"] == before["spec"]["template"]
    row = AuditEvent.objects.get(action="workload.rollback")
    assert (row.target_name, row.summary, row.before["replicas"], row.after["replicas"]) == (
        "web", "rolled back to revision 1 (pinapp-web-bbbbbbbbbb)", 2, 1
    )  # fmt: skip


def test_a_viewer_is_refused_a_rollback_and_another_tenant_gets_a_404(web, viewer, other_project, client):
    client.force_login(viewer)
    page = text(client.get(URL))

    assert "data-rollback=" not in page
    assert client.get(f"{URL}rollback/?revision=1", **HX).status_code == 403
    assert client.post(f"{URL}rollback/", {"revision": "1"}, **HX).status_code == 403
    api = APIClient()
    api.force_authenticate(viewer)
    assert api.post(f"{API}rollback/", {"revision": 1}, format="json").status_code == 403
    api.force_authenticate(other_project.memberships.first().user)
    assert api.post(f"{API}rollback/", {"revision": 1}, format="json").status_code == 404
    assert api.get(f"{API}diagnosis/").status_code == 404
    assert not AuditEvent.objects.filter(action="workload.rollback").exists()
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"]["replicas"] == 2


def test_a_stale_version_is_a_409_an_unknown_revision_a_400_and_nothing_is_written(web, developer, client):
    client.force_login(developer)

    stale = client.post(f"{URL}rollback/", {"revision": "1", "version": "999"}, **HX)
    unknown = client.post(f"{URL}rollback/", {"revision": "9"}, **HX)
    words = client.post(f"{URL}rollback/", {"revision": "one"}, **HX)

    assert stale.status_code == 409 and "you saw version 999" in text(stale)
    assert unknown.status_code == 400 and "must be one of the workload's revisions (2, 1); 9 is not" in text(unknown)
    assert words.status_code == 400 and "revision" in text(words)
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"]["replicas"] == 2


def test_the_api_rolls_back_to_the_previous_revision_with_if_match_and_says_what_changed(web, developer):
    api = APIClient()
    api.force_authenticate(developer)
    etag = api.get(API)["ETag"]

    stale = api.post(f"{API}rollback/", {}, format="json", HTTP_IF_MATCH='"999"')
    done = api.post(f"{API}rollback/", {}, format="json", HTTP_IF_MATCH=etag)
    again = api.post(f"{API}rollback/", {"revision": 1}, format="json")

    assert stale.status_code == 409
    assert done.status_code == 200 and done.json()["revision"] == 1 and done.json()["changed"] is True
    assert done.json()["changes"] == [{"path": "spec.replicas", "before": 2, "after": 1}]
    assert done["ETag"] != etag and done.json()["workload"]["spec"]["replicas"] == 1
    assert again.json()["changed"] is False and AuditEvent.objects.filter(action="workload.rollback").count() == 1


def test_a_rollback_beyond_the_grant_is_refused_like_a_scale(web, developer):
    host_cache = web.cache
    big = host_cache.get("controllerrevisions", "proj-ads", "pinapp-web-bbbbbbbbbb")
    big["data"]["spec"]["replicas"] = 40  # 40 cpu: the OnDemand grant is 16
    host_cache.put("controllerrevisions", big)
    api = APIClient()
    api.force_authenticate(developer)

    refused = api.post(f"{API}rollback/", {"revision": 1}, format="json")

    assert refused.status_code == 403 and refused.json()["error"]["code"] == "quota_exceeded"
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"]["replicas"] == 2
    assert not AuditEvent.objects.filter(action="workload.rollback").exists()


def test_the_api_says_why_in_a_typed_answer(web, viewer):
    api = APIClient()
    api.force_authenticate(viewer)

    body = api.get(f"{API}diagnosis/").json()
    waiting = api.get("/api/v1/projects/ads/workloads/PinApp/waiting/diagnosis/").json()

    assert body["state"] == "MemberUnreachable" and body["severity"] == "error"
    assert body["subject"] == {"cluster": "member-b"} and body["link"] == "/clusters/member-b/"
    assert waiting["state"] == "WaitingForQuota" and waiting["target"] == "quota"
    assert waiting["link"] == "/projects/ads/quota/" and waiting["cause"].startswith("Waiting for quota: ")


def test_a_rollback_keeps_the_operations_as_they_are(web, developer):
    live = web.objects[("PinApp", "proj-ads", "web")]
    web.put(live | {"spec": live["spec"] | {"operations": {"paused": True}}})
    api = APIClient()
    api.force_authenticate(developer)

    done = api.post(f"{API}rollback/", {"revision": 1}, format="json")

    assert done.status_code == 200 and done.json()["changes"] == [{"path": "spec.replicas", "before": 2, "after": 1}]
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"]["operations"] == {"paused": True}
