"""``POST /api/v1/projects/<project>/workloads/preview/``: each kind's preview as the page's service computes it
(objects with the injected parts named, placement with every member's result, quota fit per tier and resource),
created/configured/unchanged with the diff, who may ask (any member; another tenant a 404 before the body is read),
the one error body for a bad body, and nothing written. The actions against the real host apiserver:
``tests/workloads/submission/test_preview_live.py``."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from base.models import AuditEvent
from pincompute.kinds import KINDS, MEMBER_CLUSTER
from tests.support.api_host import client_for
from tests.support.kinds import member
from tests.support.workloads_api import error, paths
from workloads.documents import editable
from workloads.examples import example
from workloads.preview import preview

pytestmark = pytest.mark.django_db
URL = "/api/v1/projects/ads/workloads/preview/"
TIERS, RESOURCES = {"Reserved", "OnDemand", "Preemptible"}, {"cpu", "memory", "gpu", "pods"}


@pytest.fixture
def members(web, caches):
    """``web`` running on the host, and two reachable MemberCluster objects (member-a, member-b) to place on."""
    for obj in (member("member-a", "local-1a"), member("member-b", "local-1b")):
        caches["host"].put(MEMBER_CLUSTER.plural, obj)
    return web


def at(obj: Any, path: str) -> Any:
    """The value at ``spec.template.spec.initContainers[0]`` (or ``metadata.labels['a.b/c']``) in ``obj``."""
    for word, index, quoted in re.findall(r"\.?([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]", path):
        obj = obj[int(index)] if index else obj[word or re.sub(r"\\(.)", r"\1", quoted)]
    return obj


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_previews_as_the_page_shows_it(members, developer, kind):
    document = example(kind, project="ads")
    document["metadata"]["name"] = f"new-{kind.lower()}"  # the example PinApp's name is web's, which runs

    response = client_for(developer).post(URL, document, format="json")

    body = response.json()
    assert response.status_code == 200, body
    assert (body["kind"], body["name"], body["project"], body["action"]) == (
        kind,
        f"new-{kind.lower()}",
        "ads",
        "created",
    )
    assert body["live"] is None and body["diff"] is None and body["document"]["spec"]["project"] == "ads"
    runs_pods = kind != "PinScaler"  # a scaler follows its target PinApp web (on member-a and member-b)
    judged = {c["name"] for c in body["placement"]["clusters"]}
    assert judged == ({"member-a", "member-b"} if runs_pods else set()), body["placement"]
    assert {s["cluster"] for s in body["placement"]["shards"]} <= {"member-a", "member-b"}
    assert {(r["tier"], r["resource"]) for r in body["quota"]["rows"]} == {(t, r) for t in TIERS for r in RESOURCES}
    objects = [o for c in body["clusters"] for o in c["objects"]]
    assert objects and all(o["kind"] and o["object"]["kind"] == o["kind"] for o in objects)
    for o in objects:  # each injected part is a path into the object
        for path in o["injected"]:
            assert at(o["object"], path) is not None, (o["kind"], path)
    assert any(o["injected"] for o in objects) == runs_pods
    assert all((c["injection"] is not None) == runs_pods for c in body["clusters"])


def test_the_answer_is_the_page_services_placement_and_quota(members, developer, project):
    document = example("PinApp", project="ads")
    shown = preview(project, document, actor=developer)

    body = client_for(developer).post(URL, document, format="json").json()

    chosen = [(c.name, c.replicas, c.score) for c in shown.placement.clusters if c.chosen]
    assert [(c["name"], c["replicas"], c["score"]) for c in body["placement"]["clusters"] if c["chosen"]] == chosen
    assert [(s["cluster"], s["zone"], s["replicas"]) for s in body["placement"]["shards"]] == [
        (s.cluster, s.zone, s.replicas) for s in shown.placement.shards
    ]
    cpu = next(r for r in body["quota"]["rows"] if r["tier"] == "OnDemand" and r["resource"] == "cpu")
    row = next(r for r in shown.quota.for_tier(shown.quota.tier) if r.resource == "cpu")
    assert (cpu["admitted"], cpu["this"], cpu["granted"], cpu["unit"]) == (
        row.held,
        row.this,
        row.granted,
        "millicores",
    )
    assert body["quota"]["verdict"] == shown.quota.verdict == "fits"
    deployment = next(o for o in body["clusters"][0]["objects"] if o["kind"] == "Deployment")
    assert any(p.endswith("initContainers[0]") for p in deployment["injected"])
    assert "spec.template.spec.priorityClassName" in deployment["injected"]


def test_an_existing_workload_is_unchanged_then_configured_with_the_diff(members, developer):
    live = editable(members.get("PinApp", "proj-ads", "web"))
    client = client_for(developer)

    same = client.post(URL, live, format="json").json()
    edited = copy.deepcopy(live)
    edited["spec"]["template"]["containers"][0]["image"] = "registry.local/app:3"
    changed = client.post(URL, edited, format="json", HTTP_IF_MATCH='"0"').json()

    assert same["action"] == "unchanged" and same["diff"]["spec"] == [] and same["live"] == same["document"]
    assert changed["action"] == "configured" and changed["live"] == live
    assert [(c["path"], c["after"]) for c in changed["diff"]["spec"]] == [
        ("spec.template.containers[0].image", "registry.local/app:3")
    ]
    assert any(o["change"] == "changed" for o in changed["diff"]["objects"])
    assert "version 0" in changed["diff"]["stale"]


def test_a_viewer_may_preview_and_nothing_is_written(members, viewer):
    before = (copy.deepcopy(members.objects), AuditEvent.objects.count())

    response = client_for(viewer).post(URL, example("PinApp", project="ads"), format="json")  # named web, as runs

    assert response.status_code == 200 and response.json()["action"] == "configured"
    assert (members.objects, AuditEvent.objects.count()) == before


@pytest.mark.parametrize("body", [example("PinApp", project="ads"), ["not", "a", "document"]], ids=["good", "bad"])
def test_another_tenants_project_is_a_404_before_the_body_is_read(members, other_user, body):
    response = client_for(other_user).post(URL, body, format="json")

    assert error(response, 404)["fields"] == [] and "web" not in response.content.decode()
    assert client_for(None).post(URL, body, format="json").status_code == 401


def test_a_bad_body_is_the_one_error_body_naming_each_field(members, developer):
    client = client_for(developer)
    invalid = example("PinApp", project="ads")
    invalid["spec"]["replicas"] = "two"
    del invalid["spec"]["zones"]

    assert "document" in paths(client.post(URL, ["a", "list"], format="json"))
    assert "surprise" in paths(client.post(URL, {**example("PinApp", project="ads"), "surprise": 1}, format="json"))
    assert "metadata" in paths(client.post(URL, {"kind": "PinApp", "spec": {}}, format="json"))
    assert {"spec.replicas", "spec.zones"} <= set(paths(client.post(URL, invalid, format="json")))


def test_a_refusal_is_said_not_raised(members, developer):
    big = example("PinPod", project="ads")
    big["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "64"

    body = client_for(developer).post(URL, big, format="json").json()

    assert body["refusal"]["status"] == 403 and body["quota"]["verdict"] == "never"
    assert any(f["path"] == "OnDemand.cpu" for f in body["refusal"]["fields"])
