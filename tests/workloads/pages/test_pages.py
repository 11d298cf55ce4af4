"""The workload list and detail pages, and the actions on a workload, with the Django test client.

The host's and the members' watch caches are filled by hand (``caches``); the host's apiserver is a fake
holding the same objects (``fake_host``), so writes go through the real services (authorization, checks,
conditional patches, audit). Refusals: viewer 403, another tenant 404, a stale version 409 inline, a host
that is down 503 as a message; never a 500.
"""

from __future__ import annotations

import copy
import re

import pytest

from base.models import AuditEvent
from tests.support.fake_host import HX, URL, edited_document, text

pytestmark = pytest.mark.django_db


# --- the list -----------------------------------------------------------------------------------------


def test_the_list_has_one_row_per_host_workload_with_its_status_and_why_one_waits(web, owner, client):
    client.force_login(owner)
    page = text(client.get("/workloads/"))

    rows = re.findall(r'data-workload="([^"]+)" data-status="([^"]+)"', page)
    assert rows == [("ads/PinApp/waiting", "waiting"), ("ads/PinApp/web", "running")]
    assert "OnDemand cpu: over the grant" in page  # the waiting row says why
    assert "2/2" in page and "member-b" in page
    assert 'href="/workloads/catalog/"' in page and "New workload" in page
    assert 'hx-trigger="every 5s"' in page


def test_the_list_filters_by_status_kind_tier_and_project_and_answers_htmx_with_the_table(web, owner, client):
    client.force_login(owner)

    waiting = text(client.get("/workloads/?status=waiting", **HX))
    other_kind = text(client.get("/workloads/?kind=PinPod", **HX))
    other_tier = text(client.get("/workloads/?tier=Reserved&project=ads", **HX))
    bogus = client.get("/workloads/?status=nonsense&kind=Nope&tier=x", **HX)

    assert "ads/PinApp/waiting" in waiting and "ads/PinApp/web" not in waiting
    assert "<html" not in waiting and 'hx-get="/workloads/?status=waiting"' in waiting  # the poll keeps them
    assert "No workload matches these filters" in other_kind and "No workload matches" in other_tier
    assert bogus.status_code == 200 and "ads/PinApp/web" in text(bogus)


def test_the_list_filters_by_a_part_of_the_name_in_any_case(web, owner, client):
    client.force_login(owner)

    page = text(client.get("/workloads/?name=WAIT"))
    partial = text(client.get("/workloads/?name=we", **HX))
    nothing = text(client.get("/workloads/?name=nope", **HX))

    assert "ads/PinApp/waiting" in page and "ads/PinApp/web" not in page
    assert 'id="f-name" name="name" value="wait"' in page and "Clear filters" in page
    assert "ads/PinApp/web" in partial and "ads/PinApp/waiting" not in partial
    assert 'hx-get="/workloads/?name=we"' in partial  # the poll keeps the filter
    assert "No workload matches these filters" in nothing


def test_another_tenants_workloads_are_not_listed(web, other_user, other_project, client):
    client.force_login(other_user)
    page = text(client.get("/workloads/"))

    assert "ads/PinApp" not in page and "No workloads in your projects" in page
    assert "ads/PinApp" not in text(client.get("/workloads/?project=ads"))


# --- the detail page ----------------------------------------------------------------------------------


def test_the_detail_page_shows_shards_with_freshness_pods_with_links_timeline_revisions_and_spec(web, owner, client):
    client.force_login(owner)
    response = client.get(URL)
    page = text(response)

    assert response.status_code == 200
    assert 'data-shard="member-a"' in page and 'data-shard="member-b"' in page
    assert "unreachable since" in page and "ago" in page
    assert 'href="/debug/member-a/proj-ads/web-local-1a-abc/shell/"' in page
    assert 'href="/debug/member-a/proj-ads/web-local-1a-abc/"' in page
    assert "webby-1</a>" not in page  # another workload's pod
    timeline = page[page.index('id="timeline"') : page.index('id="revisions"')]
    reasons = re.findall(r"<strong>([^<]+)</strong>", timeline)
    assert reasons[:4] == ["BackOff", "SuccessfulCreate", "ScalingReplicaSet", "Revision 2 accepted"]
    assert "Scheduled" in reasons and "Admitted → True (Admitted)" in reasons and "Pulled" not in reasons
    assert "QuotaExceeded" not in reasons  # the other workload's host event
    assert "spec.replicas" in page and "registry.local/app:2" in page  # the default diff: #1 against #2
    assert "kind: PinApp" in page and "name: web" in page


def test_two_revisions_of_choice_are_compared(web, owner, client):
    client.force_login(owner)
    same = text(client.get(f"{URL}revisions/?a=pinapp-web-aaaaaaaaaa&b=pinapp-web-aaaaaaaaaa", **HX))
    diff = text(client.get(f"{URL}revisions/?a=pinapp-web-aaaaaaaaaa&b=pinapp-web-bbbbbbbbbb", **HX))

    assert "have the same spec" in same
    assert "spec.template.containers[0].image" in diff and "registry.local/app:1" in diff


def test_the_status_and_timeline_partials_answer_htmx(web, owner, client):
    client.force_login(owner)
    status = client.get(f"{URL}status/", **HX)
    timeline = client.get(f"{URL}timeline/", **HX)

    assert status.status_code == timeline.status_code == 200
    assert 'id="workload-version" name="version" value="' in text(status) and "<html" not in text(status)
    assert "BackOff" in text(timeline)


def test_a_viewer_sees_no_action_and_every_write_is_refused_with_403(web, viewer, client):
    client.force_login(viewer)
    page = text(client.get(URL))

    assert 'id="actions"' not in page and "?edit=1" not in page and "/shell/" not in page
    for op in ("pause", "resume", "stop", "start", "restart", "restart-container", "scale"):
        assert client.post(f"{URL}operate/{op}/", {"replicas": "3", "container": "app"}, **HX).status_code == 403
    assert client.post(f"{URL}delete/", **HX).status_code == 403
    assert client.post(f"{URL}spec/", {"document": "kind: PinApp"}, **HX).status_code == 403
    assert client.get(f"{URL}spec/?edit=1", **HX).content.count(b"<textarea") == 0
    assert not AuditEvent.objects.filter(action__startswith="workload.").exists()


def test_another_tenant_gets_404_for_every_page_and_action(web, other_user, other_project, client):
    client.force_login(other_user)

    for url in (URL, f"{URL}status/", f"{URL}timeline/", f"{URL}revisions/", f"{URL}spec/"):
        assert client.get(url).status_code == 404, url
    assert client.post(f"{URL}operate/pause/").status_code == 404
    assert client.post(f"{URL}delete/").status_code == 404
    assert client.post(f"{URL}spec/", {"document": "x"}).status_code == 404
    assert "web" in str(web.objects)  # nothing was deleted


def test_a_missing_workload_or_kind_is_404(web, owner, client):
    client.force_login(owner)

    assert client.get("/workloads/ads/PinApp/nothing/").status_code == 404
    assert client.get("/workloads/ads/Nonsense/web/").status_code == 404
    assert client.get("/workloads/ads/pinapps/web/").status_code == 200  # the plural names the kind too


@pytest.mark.parametrize(
    ("op", "data", "expect"),
    [
        ("pause", {}, {"operations": {"paused": True}}),
        ("stop", {}, {"operations": {"stopped": True}}),
        ("scale", {"replicas": "5"}, {"replicas": 5}),
        ("restart-container", {"container": "app", "pod": "web-local-1a-abc"}, None),
        ("restart", {}, None),
    ],
)
def test_a_developer_operates_and_it_is_written_and_audited(web, developer, client, op, data, expect):
    client.force_login(developer)
    version = str(web.objects[("PinApp", "proj-ads", "web")]["metadata"]["generation"])

    response = client.post(f"{URL}operate/{op}/", {**data, "version": version}, **HX)

    assert response.status_code == 200, text(response)
    assert response["HX-Trigger"] == "workload-changed" and "requested for PinApp web" in text(response)
    spec = web.objects[("PinApp", "proj-ads", "web")]["spec"]
    for key, value in (expect or {}).items():
        assert spec[key] == value if not isinstance(value, dict) else {**spec[key], **value} == spec[key]
    if op == "restart-container":
        assert spec["operations"]["restartContainer"]["container"] == "app"
        assert spec["operations"]["restartContainer"]["pod"] == "web-local-1a-abc"
        assert "restarts it in place in pod web-local-1a-abc" in text(response)  # says what the operator does
        assert "deletes the pod where it cannot exec" in text(response)
    assert AuditEvent.objects.filter(action=f"workload.{op}", target_name="web").count() == 1


def test_a_plain_post_redirects_back_to_the_page(web, developer, client):
    client.force_login(developer)
    response = client.post(f"{URL}operate/pause/")

    assert response.status_code == 302 and response["Location"] == URL


def test_a_stale_version_is_a_409_inline_naming_both_versions(web, developer, client):
    client.force_login(developer)
    web.patch("PinApp", "proj-ads", "web", {"spec": {"replicas": 3}})  # someone else changed it: generation 2

    response = client.post(f"{URL}operate/pause/", {"version": "1"}, **HX)

    assert response.status_code == 409
    page = text(response)
    assert 'id="actions"' in page and 'data-error-status="409"' in page
    assert (
        "you saw version 1" in page
        and str(web.objects[("PinApp", "proj-ads", "web")]["metadata"]["generation"]) in page
    )
    assert "paused" not in web.objects[("PinApp", "proj-ads", "web")]["spec"].get("operations", {})


def test_an_invalid_operation_is_a_400_inline(web, developer, client):
    client.force_login(developer)

    wrong_container = client.post(f"{URL}operate/restart-container/", {"container": "nope"}, **HX)
    bad_replicas = client.post(f"{URL}operate/scale/", {"replicas": "many"}, **HX)
    unknown = client.post(f"{URL}operate/explode/", **HX)

    assert wrong_container.status_code == bad_replicas.status_code == unknown.status_code == 400
    assert "must be one of the workload's containers: app" in text(wrong_container)
    assert "whole number" in text(bad_replicas)


@pytest.mark.parametrize("replicas", ["4_0", "+4", "-0", "\u0664", " 4", "4.0", "9" * 7])
def test_replicas_are_ascii_digits_only(web, developer, client, replicas):
    """Python's ``int`` reads "4_0" as 40 and Arabic-Indic digits as digits: the form takes 0-9 only."""
    client.force_login(developer)
    before = web.objects[("PinApp", "proj-ads", "web")]["spec"].get("replicas")

    refused = client.post(f"{URL}operate/scale/", {"replicas": replicas}, **HX)

    assert refused.status_code == 400 and "digits 0-9" in text(refused)
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"].get("replicas") == before


def test_a_host_that_is_down_is_a_503_message_never_a_500(web, developer, client):
    client.force_login(developer)
    web.down = True

    htmx = client.post(f"{URL}operate/pause/", **HX)
    plain = client.post(f"{URL}operate/pause/")
    deleted = client.post(f"{URL}delete/", **HX)
    edited = client.post(f"{URL}spec/", {"document": edited_document(web, 2)}, **HX)

    assert htmx.status_code == plain.status_code == deleted.status_code == edited.status_code == 503
    assert (
        'data-error-status="503"' in text(htmx) and "unreachable" in text(htmx) and "Nothing was changed" in text(htmx)
    )
    assert htmx["Retry-After"] == "5" and "Error 503" in text(plain)
    assert 'data-error-status="503"' in text(edited)


def test_a_page_read_while_the_host_is_down_is_served_from_the_cache(web, owner, client):
    web.down = True
    client.force_login(owner)

    assert client.get(URL).status_code == 200
    assert client.get("/workloads/ads/PinApp/absent/").status_code == 503  # a miss needs the host


def test_delete_is_confirmed_and_redirects_to_the_list(web, owner, client):
    client.force_login(owner)
    page = text(client.get(URL))
    assert 'hx-confirm="Delete PinApp web?' in page

    response = client.post(f"{URL}delete/", **HX)

    assert response.status_code == 200 and response["HX-Redirect"] == "/workloads/?project=ads"
    assert ("PinApp", "proj-ads", "web") not in web.objects
    assert AuditEvent.objects.filter(action="workload.delete", target_name="web").exists()


def test_every_action_is_confirmed(web, owner, client):
    client.force_login(owner)
    page = text(client.get(URL))

    forms = re.findall(r'<form[^>]*hx-post="/workloads/ads/PinApp/web/(?:operate|delete)[^"]*"[^>]*>', page)
    assert len(forms) >= 6 and all("hx-confirm=" in f for f in forms)


# --- edit ---------------------------------------------------------------------------------------------


def test_an_edit_at_the_live_version_is_saved_and_audited(web, developer, client):
    client.force_login(developer)
    form = text(client.get(f"{URL}spec/?edit=1", **HX))
    version = re.search(r'name="version" value="(\d+)"', form).group(1)

    response = client.post(f"{URL}spec/", {"document": edited_document(web, 4), "version": version}, **HX)

    assert response.status_code == 200, text(response)
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"]["replicas"] == 4
    assert "Saved PinApp web" in text(response) and response["HX-Trigger"] == "workload-changed"
    assert AuditEvent.objects.filter(action="workload.update", target_name="web").exists()


def test_a_stale_edit_shows_the_409_with_both_versions_and_the_difference(web, developer, client):
    client.force_login(developer)
    stale = str(web.objects[("PinApp", "proj-ads", "web")]["metadata"]["generation"])
    web.patch("PinApp", "proj-ads", "web", {"spec": {"replicas": 7}})  # someone else scaled it
    live = str(web.objects[("PinApp", "proj-ads", "web")]["metadata"]["generation"])

    response = client.post(f"{URL}spec/", {"document": edited_document(web, 4), "version": stale}, **HX)

    page = text(response)
    assert response.status_code == 409
    assert f"data-mine>{stale}<" in page and f"data-live>{live}<" in page
    assert "spec.replicas" in page and f'name="version" value="{live}"' in page  # saving again applies it over live
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"]["replicas"] == 7


def test_an_edit_cannot_rename_or_break_the_workload(web, developer, client):
    client.force_login(developer)
    renamed = edited_document(web, 2).replace("name: web", "name: other")

    rename = client.post(f"{URL}spec/", {"document": renamed}, **HX)
    broken = client.post(f"{URL}spec/", {"document": "kind: PinApp\nmetadata: {name: web}\nspec: {replicas: -1}"}, **HX)
    garbage = client.post(f"{URL}spec/", {"document": "a: *x"}, **HX)

    assert rename.status_code == broken.status_code == garbage.status_code == 400
    assert "must stay web" in text(rename)
    assert ("PinApp", "proj-ads", "other") not in web.objects


def test_an_edit_is_previewed_before_it_is_saved_with_its_diff_and_nothing_written(web, developer, viewer, client):
    client.force_login(developer)
    before = copy.deepcopy(web.objects[("PinApp", "proj-ads", "web")])

    response = client.post(f"{URL}spec/preview/", {"document": edited_document(web, 5)}, **HX)

    page = text(response)
    assert response.status_code == 200, page
    assert "spec.replicas" in page and "Placement" in page and "Quota fit" in page
    assert web.objects[("PinApp", "proj-ads", "web")] == before  # a preview writes nothing
    bad = client.post(f"{URL}spec/preview/", {"document": "a: [1"}, **HX)
    assert bad.status_code == 400 and "line 1" in text(bad)
    client.force_login(viewer)  # may preview (it writes nothing), as through the API
    assert client.post(f"{URL}spec/preview/", {"document": edited_document(web, 5)}, **HX).status_code == 200
    assert web.objects[("PinApp", "proj-ads", "web")] == before
