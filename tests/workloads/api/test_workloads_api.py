"""The workload API through DRF's test client: list, get, create (JSON and YAML), update (PUT and merge
PATCH), delete and the operations, all through the real services over a fake host apiserver whose writes
land in the host cache. Refusals: anonymous 401, viewer 403, another tenant 404, invalid 400 with field
paths, hostile YAML 400, stale If-Match 409 naming both versions; a refused write changes nothing."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from base.models import AuditEvent
from tests.support.api_host import client_for
from tests.support.workloads_api import NEW, ONE, document, error, paths

pytestmark = pytest.mark.django_db


# --- reads ------------------------------------------------------------------------------------------------


def test_the_list_spans_the_callers_projects_with_slim_representations(web, owner):
    body = client_for(owner).get("/api/v1/workloads/").json()

    assert body["next"] is None and body["problems"] == []
    assert [(w["project"], w["kind"], w["name"]) for w in body["results"]] == [
        ("ads", "PinApp", "waiting"),
        ("ads", "PinApp", "web"),
    ]
    web_ = body["results"][1]
    assert set(web_) == {
        "apiVersion", "kind", "name", "project", "tier", "version", "admission", "status", "createdAt", "deleting",
    }  # fmt: skip
    assert set(web_["status"]) == {"state", "reason", "phase", "ready", "desired", "clusters"}
    assert web_["admission"] == {"admitted": True, "reason": "Admitted", "message": "fits"}
    assert web_["status"]["state"] == "running" and (web_["status"]["ready"], web_["status"]["desired"]) == (2, 2)
    assert web_["status"]["clusters"] == ["member-a", "member-b"]
    waiting = body["results"][0]
    assert waiting["admission"]["admitted"] is False and waiting["status"]["state"] == "waiting"
    assert "over the grant" in waiting["status"]["reason"]
    assert "managedFields" not in json.dumps(body) and "uid" not in json.dumps(body)


def test_the_full_view_lists_each_workload_as_get_answers_it(web, owner):
    client = client_for(owner)
    body = client.get("/api/v1/projects/ads/workloads/?view=full&limit=1").json()
    following = client.get(body["next"]).json()  # the view is kept across pages

    web_ = following["results"][0]
    one = client.get("/api/v1/projects/ads/workloads/PinApp/web/").json()
    assert "ownership" in one  # a single workload's only (read fresh from its project, not remembered with the row)
    assert web_ == {k: v for k, v in one.items() if k != "ownership"}
    assert [(s["cluster"], s["ready"], s["unreachableSince"]) for s in web_["shards"]] == [
        ("member-a", 1, None),
        ("member-b", 0, "2026-11-22T00:03:00Z"),
    ]
    assert web_["spec"] and "conditions" in web_["status"] and "labels" in web_
    assert set(paths(client.get("/api/v1/workloads/?view=yaml"))) == {"view"}


def test_the_list_filters_by_kind_tier_status_cluster_and_project(web, owner):
    client = client_for(owner)

    def names(query: str) -> list[str]:
        response = client.get(f"/api/v1/workloads/?{query}")
        assert response.status_code == 200, response.json()
        return [w["name"] for w in response.json()["results"]]

    assert names("status=waiting") == ["waiting"]
    assert names("kind=pinapps&tier=OnDemand&cluster=member-b") == ["web"]
    assert names("kind=PinPod") == names("tier=Reserved") == names("project=ml") == []
    assert names("project=ads&status=running") == ["web"]
    assert set(paths(client.get("/api/v1/workloads/?kind=Nope&tier=x&status=y&limit=0"))) == {"kind", "tier", "status"}
    assert set(paths(client.get("/api/v1/workloads/?limit=0"))) == {"limit"}


def test_the_list_pages_with_a_cursor(web, owner):
    client = client_for(owner)

    first = client.get("/api/v1/projects/ads/workloads/?limit=1").json()
    second = client.get(first["next"]).json()

    assert [w["name"] for w in first["results"]] == ["waiting"]
    assert [w["name"] for w in second["results"]] == ["web"] and second["next"] is None
    assert set(paths(client.get("/api/v1/workloads/?cursor=bogus"))) == {"cursor"}


def test_the_list_is_read_from_the_host_cache_never_the_apiserver(web, owner, monkeypatch):
    monkeypatch.setattr("workloads.host.get", lambda *a: pytest.fail("a point read for a list"))

    assert len(client_for(owner).get("/api/v1/workloads/").json()["results"]) == 2


def test_another_tenant_sees_nothing_of_the_project(web, other_user, other_project):
    client = client_for(other_user)

    assert client.get("/api/v1/workloads/").json()["results"] == []
    assert client.get("/api/v1/workloads/?project=ads").json()["results"] == []
    error(client.get("/api/v1/projects/ads/workloads/"), 404)
    refused = error(client.get(ONE), 404)
    assert "web" not in json.dumps(refused)


def test_get_answers_the_workload_with_its_version_as_etag_by_kind_or_plural(web, viewer):
    client = client_for(viewer)

    response = client.get(ONE)
    plural = client.get("/api/v1/projects/ads/workloads/pinapps/web/")
    unchanged = client.get(ONE, HTTP_IF_NONE_MATCH=response["ETag"])

    assert response.status_code == 200 and response.json()["name"] == "web"
    assert response["ETag"] == f'"{response.json()["version"]}"' and response.json()["version"]
    assert plural.json() == response.json()
    assert unchanged.status_code == 304
    error(client.get("/api/v1/projects/ads/workloads/PinApp/absent/"), 404)
    error(client.get("/api/v1/projects/ads/workloads/Nope/web/"), 404)


def test_anonymous_callers_get_401_everywhere(web):
    client = client_for(None)

    for method, url in [
        ("get", "/api/v1/workloads/"),
        ("get", ONE),
        ("post", NEW),
        ("put", ONE),
        ("patch", ONE),
        ("delete", ONE),
        ("post", f"{ONE}pause/"),
        ("get", f"{ONE}timeline/"),
        ("get", "/api/v1/projects/ads/timeline/"),
        ("get", "/api/v1/projects/ads/pods/member-a/web-local-1a-abc/"),
    ]:
        error(getattr(client, method)(url), 401)


# --- create -----------------------------------------------------------------------------------------------


def test_create_from_json_writes_once_and_answers_201_with_location_and_etag(fake_host, developer):
    response = client_for(developer).post(NEW, document(), format="json")

    body = response.json()
    assert response.status_code == 201, body
    assert response["Location"].endswith("/api/v1/projects/ads/workloads/PinApp/shop/")
    assert response["ETag"] == f'"{body["version"]}"'
    assert (body["kind"], body["name"], body["project"], body["tier"]) == ("PinApp", "shop", "ads", "OnDemand")
    assert body["spec"]["project"] == "ads"
    written = fake_host.objects[("PinApp", "proj-ads", "shop")]
    assert written["metadata"]["namespace"] == "proj-ads"
    assert AuditEvent.objects.filter(action="workload.create", target_name="shop").count() == 1
    assert client_for(developer).get("/api/v1/projects/ads/workloads/PinApp/shop/").status_code == 200


def test_create_from_yaml(fake_host, developer):
    text = """
apiVersion: pincompute.io/v1
kind: PinApp
metadata: {name: shop}
spec:
  tier: OnDemand
  replicas: 1
  zones: [local-1a]
  template:
    containers:
    - name: app
      image: registry.local/app:1
      resources: {requests: {cpu: "1", memory: 1Gi}}
"""
    response = client_for(developer).post(NEW, text, content_type="application/yaml")

    assert response.status_code == 201, response.json()
    assert ("PinApp", "proj-ads", "shop") in fake_host.objects


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ('a: &a ["x","x"]\nb: &b [*a,*a]\nc: [*b,*b]\n', "aliases"),
        ("!!python/object/apply:os.system ['true']", "document"),
        ("- just\n- a list\n", "must be"),
        ("kind: [unclosed\n", "not valid"),
    ],
    ids=["alias-bomb", "python-tag", "list", "broken"],
)
def test_hostile_or_malformed_yaml_is_400_naming_the_document(fake_host, developer, body, said):
    response = client_for(developer).post(NEW, body, content_type="application/yaml")

    refused = error(response, 400)
    assert [f["path"] for f in refused["fields"]] == ["document"]
    assert said in refused["message"] + json.dumps(refused["fields"])
    assert fake_host.objects == {}


def test_a_body_over_the_limit_is_413_before_it_is_parsed(fake_host, developer):
    response = client_for(developer).post(NEW, "x" * (512 * 1024 + 10), content_type="application/yaml")

    refused = error(response, 413)
    assert [f["path"] for f in refused["fields"]] == ["body"] and "512 KiB" in refused["message"]
    assert fake_host.objects == {}


def test_a_document_over_its_own_limit_is_400_when_bodies_may_be_larger(fake_host, developer, settings):
    settings.REQUEST_BODY_MAX_BYTES = 2 * 1024 * 1024

    for content_type in ("application/yaml", "application/json"):
        response = client_for(developer).post(NEW, "x" * (512 * 1024 + 10), content_type=content_type)

        refused = error(response, 400)
        assert [f["path"] for f in refused["fields"]] == ["document"] and "large" in json.dumps(refused["fields"])
    assert fake_host.objects == {}


def test_deeply_nested_json_is_400_not_500(fake_host, developer):
    response = client_for(developer).post(NEW, "[" * 100_000 + "]" * 100_000, content_type="application/json")

    assert "document" in paths(response)


def test_an_invalid_spec_is_400_with_field_paths_and_writes_nothing(fake_host, developer):
    bad = document()
    bad["spec"]["replicas"] = -1
    bad["spec"]["template"]["containers"][0].pop("image")

    fields = paths(client_for(developer).post(NEW, bad, format="json"))

    assert any(p.startswith("spec.replicas") for p in fields), fields
    assert any("image" in p for p in fields), fields
    assert fake_host.objects == {} and not AuditEvent.objects.filter(action="workload.create").exists()


def test_create_refusals_viewer_403_other_tenant_404_exists_409_never_fits_403(
    web, viewer, other_user, other_project, developer
):
    error(client_for(viewer).post(NEW, document(), format="json"), 403)
    error(client_for(other_user).post(NEW, document(), format="json"), 404)
    error(client_for(developer).post(NEW, document("web"), format="json"), 409)
    huge = error(client_for(developer).post(NEW, document(cpu="64"), format="json"), 403)
    assert huge["code"] == "quota_exceeded" and huge["fields"]
    assert ("PinApp", "proj-ads", "shop") not in web.objects


@pytest.mark.parametrize("value", ["true", "All"])  # All: Kubernetes' own value, what kubectl --dry-run=server sends
def test_a_dry_run_answers_what_would_be_written_and_writes_nothing(fake_host, developer, value):
    response = client_for(developer).post(f"{NEW}?dryRun={value}", document(), format="json")

    assert response.status_code == 200 and response.json()["name"] == "shop"
    assert fake_host.objects == {}


def test_a_dry_run_value_that_is_neither_a_boolean_nor_all_is_refused_naming_it(fake_host, developer):
    response = error(client_for(developer).post(f"{NEW}?dryRun=some", document(), format="json"), 400)

    assert response["fields"] == [{"path": "dryRun", "message": "must be true, false or All"}]
    assert fake_host.objects == {}


# --- update -----------------------------------------------------------------------------------------------


def live_version(host: Any, name: str = "web") -> str:
    """The live version as the API names it (the ETag of the host's object as it is now)."""
    from workloads.lookup import Found

    return Found(None, "PinApp", name, host.objects[("PinApp", "proj-ads", name)], None).version


def test_put_replaces_the_spec_conditionally_on_if_match(web, developer):
    client = client_for(developer)
    etag = client.get(ONE)["ETag"]
    changed = document("web", replicas=3)

    response = client.put(ONE, changed, format="json", HTTP_IF_MATCH=etag)

    assert response.status_code == 200, response.json()
    assert response.json()["spec"]["replicas"] == 3
    assert response["ETag"] != etag and response["ETag"] == f'"{live_version(web)}"'
    assert web.objects[("PinApp", "proj-ads", "web")]["spec"]["replicas"] == 3


def test_a_stale_if_match_is_409_naming_both_versions_and_writes_nothing(web, developer):
    client = client_for(developer)
    stale = client.get(ONE)["ETag"]
    client.post(f"{ONE}pause/", HTTP_IF_MATCH=stale)  # someone else's change
    live = live_version(web)
    before = copy.deepcopy(web.objects)

    for response in [
        client.put(ONE, document("web", replicas=3), format="json", HTTP_IF_MATCH=stale),
        client.patch(ONE, {"spec": {"replicas": 3}}, format="json", HTTP_IF_MATCH=stale),
        client.post(f"{ONE}scale/", {"replicas": 3}, format="json", HTTP_IF_MATCH=stale),
        client.delete(ONE, HTTP_IF_MATCH=stale),
    ]:
        refused = error(response, 409)
        assert stale.strip('"') in refused["message"] and live in refused["message"], refused
        assert [f["message"] for f in refused["fields"]] == [f"is {live}"]
    assert web.objects == before


def test_put_creates_an_absent_workload_so_apply_is_idempotent(fake_host, developer):
    client = client_for(developer)
    url = "/api/v1/projects/ads/workloads/pinapps/shop/"

    created = client.put(url, document(), format="json")
    again = client.put(url, document(), format="json")

    assert created.status_code == 201 and again.status_code == 200
    assert list(fake_host.objects) == [("PinApp", "proj-ads", "shop")]


def test_put_refuses_a_document_naming_another_workload(web, developer):
    client = client_for(developer)

    assert "metadata.name" in paths(client.put(ONE, document("other"), format="json"))
    other_kind = document("web")
    other_kind["kind"] = "PinPod"
    assert "kind" in paths(client.put(ONE, other_kind, format="json"))


def test_patch_merges_into_the_live_document(web, developer):
    client = client_for(developer)
    client.put(ONE, document("web"), format="json")  # labels app=web

    response = client.patch(
        ONE,
        {"metadata": {"labels": {"app": None, "team": "ads"}}, "spec": {"replicas": 4}},
        format="json",
        HTTP_IF_MATCH=client.get(ONE)["ETag"],
    )
    merge = client.patch(ONE, {"spec": {"replicas": 1}}, content_type="application/merge-patch+json")

    assert response.status_code == 200, response.json()
    assert response.json()["labels"] == {"team": "ads"} and response.json()["spec"]["replicas"] == 4
    assert merge.status_code == 200 and merge.json()["spec"]["replicas"] == 1
    assert paths(client.patch(ONE, {"spec": {"replicas": "many"}}, format="json"))


def test_writes_by_a_viewer_are_403_and_by_another_tenant_404(web, viewer, other_user, other_project):
    before = copy.deepcopy(web.objects)
    for client, status in [(client_for(viewer), 403), (client_for(other_user), 404)]:
        error(client.put(ONE, document("web"), format="json"), status)
        error(client.patch(ONE, {"spec": {"replicas": 1}}, format="json"), status)
        error(client.delete(ONE), status)
        error(client.post(f"{ONE}scale/", {"replicas": 1}, format="json"), status)
        error(client.post(f"{ONE}pause/"), status)
    assert web.objects == before and not AuditEvent.objects.filter(action__startswith="workload.").exists()


def test_delete_removes_the_workload(web, developer):
    client = client_for(developer)

    response = client.delete(ONE, HTTP_IF_MATCH=client.get(ONE)["ETag"])

    assert response.status_code == 204
    assert ("PinApp", "proj-ads", "web") not in web.objects
    assert AuditEvent.objects.filter(action="workload.delete", target_name="web").count() == 1
    error(client.get(ONE), 404)


# --- operations -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "body", "expect"),
    [
        ("pause", None, {"operations": {"paused": True}}),
        ("resume", None, {"operations": {"paused": False}}),
        ("stop", None, {"operations": {"stopped": True}}),
        ("start", None, {"operations": {"stopped": False}}),
        ("scale", {"replicas": 3}, {"replicas": 3}),
    ],
)
def test_operations_change_the_spec_and_answer_the_workload(web, developer, operation, body, expect):
    undone = {"resume": "paused", "start": "stopped"}.get(operation)
    if undone:  # resume and start on a running workload write nothing: begin from a paused or stopped one
        live = copy.deepcopy(web.objects[("PinApp", "proj-ads", "web")])
        live["spec"]["operations"] = {undone: True}
        web.put(live)

    response = client_for(developer).post(f"{ONE}{operation}/", body, format="json")

    assert response.status_code == 200, response.json()
    spec = response.json()["spec"]
    for key, value in expect.items():
        assert spec[key] == value if not isinstance(value, dict) else spec[key] | value == spec[key]
    assert response["ETag"] == f'"{live_version(web)}"'
    assert AuditEvent.objects.filter(action=f"workload.{operation}").count() == 1


def test_restart_and_restart_container(web, developer):
    client = client_for(developer)

    restarted = client.post(f"{ONE}restart/")
    one = client.post(f"{ONE}restart-container/", {"container": "app", "pod": "web-local-1a-abc"}, format="json")
    unknown = client.post(f"{ONE}restart-container/", {"container": "nope"}, format="json")
    missing = client.post(f"{ONE}restart-container/", {}, format="json")

    assert restarted.status_code == 200 and restarted.json()["spec"]["operations"]["restartedAt"]
    request = one.json()["spec"]["operations"]["restartContainer"]
    assert (request["container"], request["pod"]) == ("app", "web-local-1a-abc")
    assert "container" in paths(unknown) and "container" in paths(missing)


def test_scale_refusals_name_the_field(web, developer):
    client = client_for(developer)

    assert "replicas" in paths(client.post(f"{ONE}scale/", {"replicas": -1}, format="json"))
    assert "replicas" in paths(client.post(f"{ONE}scale/", {}, format="json"))
    assert error(client.post(f"{ONE}scale/", {"replicas": 100}, format="json"), 403)["code"] == "quota_exceeded"


def test_a_host_that_cannot_be_reached_is_503_with_retry_after(web, developer):
    client = client_for(developer)
    web.down = True

    for response in [
        client.put(ONE, document("web", replicas=3), format="json"),
        client.post(f"{ONE}pause/"),
        client.delete(ONE),
    ]:
        assert error(response, 503)["code"] and int(response["Retry-After"]) >= 1
    assert client.get(ONE).status_code == 200  # reads come from the cache
