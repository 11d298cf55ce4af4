"""The workload list and detail pages, and the actions on a workload, with the Django test client.

The host's and the members' watch caches are filled by hand (``caches``); the host's apiserver is a fake
holding the same objects (``fake_host``), so writes go through the real services (authorization, checks,
conditional patches, audit). Refusals: viewer 403, another tenant 404, a stale version 409 inline, a host
that is down 503 as a message; never a 500.
"""

from __future__ import annotations

import copy
import html
import re
from typing import Any

import pytest

from base.errors import Conflict, NotFound, Unavailable
from base.models import AuditEvent
from tests.clusters.factories import make_cluster, make_quota
from tests.projects.factories import HOST, fill, workload_cr
from tests.support.fakes import FilledCache

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
URL = "/workloads/ads/PinApp/web/"


def text(response) -> str:
    return html.unescape(response.content.decode())


class FakeHost:
    """The host apiserver's workload objects, mirrored into the host watch cache on every write."""

    def __init__(self, cache: Any) -> None:
        self.cache, self.objects, self.down, self.version = cache, {}, False, 100

    def put(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.version += 1
        obj = copy.deepcopy(obj)
        before = self.objects.get((obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"]))
        generation = int((before or {}).get("metadata", {}).get("generation") or 0)
        if before is None or before.get("spec") != obj.get("spec"):  # as the apiserver: only a spec change
            generation += 1
        obj["metadata"]["resourceVersion"] = str(self.version)
        obj["metadata"]["generation"] = generation
        obj["metadata"].setdefault("uid", f"uid-{obj['metadata']['name']}")
        self.objects[(obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"])] = obj
        fill({HOST: self.cache}, HOST, obj)
        return copy.deepcopy(obj)

    def _check(self) -> None:
        if self.down:
            raise Unavailable("update on host: the host's apiserver is unreachable", retry_after=5)

    def get(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        self._check()
        try:
            return copy.deepcopy(self.objects[(kind, namespace, name)])
        except KeyError:
            raise NotFound("not found") from None

    def patch(self, kind: str, namespace: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
        live = self.get(kind, namespace, name)
        if body.get("metadata", {}).get("resourceVersion") not in (None, live["metadata"]["resourceVersion"]):
            raise Conflict("update: the object has been modified")

        def merge(into: dict[str, Any], change: dict[str, Any]) -> None:
            for key, value in change.items():
                if isinstance(value, dict) and isinstance(into.get(key), dict):
                    merge(into[key], value)
                else:
                    into[key] = value

        merge(live["spec"], body.get("spec") or {})
        return self.put(live)

    def replace(self, manifest: dict[str, Any]) -> dict[str, Any]:
        meta = manifest["metadata"]
        live = self.get(manifest["kind"], meta["namespace"], meta["name"])
        if meta.get("resourceVersion") != live["metadata"]["resourceVersion"]:
            raise Conflict("update: the object has been modified")
        return self.put({**manifest, "status": live.get("status", {})})

    def delete(self, kind: str, namespace: str, name: str, *, uid: str | None = None) -> None:
        self.get(kind, namespace, name)
        del self.objects[(kind, namespace, name)]


@pytest.fixture
def fake_host(project, caches, monkeypatch):
    make_cluster("host", role="host")
    make_quota("ondemand", 16, project="ads", mem_gib=64)
    fake = FakeHost(caches.setdefault(HOST, FilledCache({})))
    for name in ("get", "patch", "replace", "delete"):
        monkeypatch.setattr(f"workloads.host.{name}", getattr(fake, name))
    return fake


def running_app(name: str = "web", **kwargs: Any) -> dict[str, Any]:
    obj = workload_cr(name, clusters=("member-a", "member-b"), **kwargs)
    obj["metadata"]["uid"] = f"uid-{name}"
    obj["status"] |= {
        "phase": "Running",
        "replicas": 2,
        "readyReplicas": 2,
        "currentRevision": f"pinapp-{name}-aaaaaaaaaa",
        "shards": [
            {
                "cluster": "member-a",
                "zone": "local-1a",
                "replicas": 1,
                "readyReplicas": 1,
                "state": "Ready",
                "message": "",
                "phase": "Running",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-22T00:01:00Z"}],
                "lastSeen": "2026-11-22T00:02:00Z",
            },
            {
                "cluster": "member-b",
                "zone": "local-1b",
                "replicas": 1,
                "readyReplicas": 0,
                "state": "Unknown",
                "message": "member unreachable since 2026-11-22T00:03:00Z",
                "phase": "Running",
                "conditions": [],
                "lastSeen": "2026-11-22T00:02:30Z",
                "unreachableSince": "2026-11-22T00:03:00Z",
            },
        ],
    }
    obj["status"]["conditions"] = [
        {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "fits",
         "lastTransitionTime": "2026-11-22T00:00:05Z"},
        {"type": "Ready", "status": "True", "reason": "AllShards", "message": "",
         "lastTransitionTime": "2026-11-22T00:01:00Z"},
    ]  # fmt: skip
    return obj


def pod(name: str, workload: str = "web", kind: str = "PinApp", namespace: str = "proj-ads") -> dict[str, Any]:
    return {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{name}",
            "labels": {"pincompute.io/workload": workload, "pincompute.io/kind": kind},
        },
        "spec": {"containers": [{"name": "app"}], "nodeName": "kwok-1"},
        "status": {"phase": "Running", "containerStatuses": [{"name": "app", "ready": True, "restartCount": 3}]},
    }


def event(name: str, kind: str, obj: str, reason: str, at: str, *, uid: str = "", warning: bool = False):
    return {
        "metadata": {"name": name, "namespace": "proj-ads"},
        "involvedObject": {"kind": kind, "name": obj, "namespace": "proj-ads", "uid": uid},
        "reason": reason,
        "message": f"{reason} of {obj}",
        "type": "Warning" if warning else "Normal",
        "lastTimestamp": at,
        "count": 1,
    }


def revision(number: int, replicas: int, image: str) -> dict[str, Any]:
    spec = workload_cr("web")["spec"] | {"replicas": replicas}
    spec["template"]["containers"][0]["image"] = image
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": f"pinapp-web-{'ab'[number % 2] * 10}",
            "namespace": "proj-ads",
            "creationTimestamp": f"2026-11-22T00:0{number}:00Z",
            "labels": {
                "pincompute.io/kind": "PinApp",
                "pincompute.io/workload": "web",
                "app.kubernetes.io/managed-by": "pincompute",
            },
            "ownerReferences": [{"uid": "uid-web", "kind": "PinApp", "name": "web"}],
        },
        "data": {"spec": spec},
        "revision": number,
    }


@pytest.fixture
def web(fake_host, caches):
    """``web`` (PinApp, 2 shards) with pods, events and two revisions; ``waiting`` over the grant."""
    fake_host.put(running_app())
    fake_host.put(workload_cr("waiting", admitted=False, clusters=()))
    host = caches[HOST]
    host.put("controllerrevisions", revision(1, 1, "registry.local/app:1"))
    host.put("controllerrevisions", revision(2, 2, "registry.local/app:2"))
    host.put("events", event("e1", "PinApp", "web", "Scheduled", "2026-11-22T00:00:06Z", uid="uid-web"))
    host.put("events", event("e2", "PinApp", "waiting", "QuotaExceeded", "2026-11-22T00:00:07Z"))
    shard = running_app()
    shard["metadata"]["uid"] = "shard-uid"
    member = fill(caches, "member-a", shard, pods=[pod("web-local-1a-abc"), pod("webby-1", workload="webby")])
    owned = {"uid": "dep-uid", "ownerReferences": [{"uid": "shard-uid"}]}
    member.put("deployments", {"metadata": {"name": "web-local-1a", "namespace": "proj-ads", **owned}})
    member.put("events", event("m1", "Pod", "web-local-1a-abc", "BackOff", "2026-11-22T00:04:00Z", warning=True))
    scaled = event("m2", "Deployment", "web-local-1a", "ScalingReplicaSet", "2026-11-22T00:03:30Z", uid="dep-uid")
    member.put("events", scaled)
    member.put("events", event("m3", "ReplicaSet", "web-local-1a-5f6", "SuccessfulCreate", "2026-11-22T00:03:40Z"))
    member.put("events", event("m4", "Pod", "webby-1", "Pulled", "2026-11-22T00:03:50Z"))  # another workload's
    fill(caches, "member-b")
    return fake_host


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


def edited_document(web: FakeHost, replicas: int) -> str:
    live = web.objects[("PinApp", "proj-ads", "web")]
    spec = copy.deepcopy(live["spec"]) | {"replicas": replicas}
    import yaml

    return yaml.safe_dump(
        {"apiVersion": "pincompute.io/v1", "kind": "PinApp", "metadata": {"name": "web"}, "spec": spec}
    )


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
    client.force_login(viewer)
    assert client.post(f"{URL}spec/preview/", {"document": edited_document(web, 5)}, **HX).status_code == 403
