"""An operation the spec already says is a no-op: nothing is written (no patch, no new generation, no audit row)
and the workload is answered as it is (200, the same version). An operation that has no meaning for the kind is
refused as ``pause`` on a PinPod is: a PinPod cannot be paused, so it cannot be resumed either (400 on
``spec.operations.paused``). Checked for every kind and operation, through the API and the page."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from base.models import AuditEvent
from pincompute.kinds import KINDS
from tests.support.api_host import ApiHost, client_for
from workloads.examples import example

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def api(kind: str, name: str) -> str:
    return f"/api/v1/projects/ads/workloads/{kind}/{name}/"


def page(kind: str, name: str) -> str:
    return f"/workloads/ads/{kind}/{name}/operate/"


def put(fake: ApiHost, kind: str) -> tuple[str, str, str]:
    """``kind``'s catalog example, live on the host in project ads; returns its key."""
    doc = example(kind, project="ads")
    doc["metadata"]["namespace"] = "proj-ads"
    doc["status"] = {}
    fake.put(doc)
    return (kind, "proj-ads", doc["metadata"]["name"])


class Patches:
    """Counts the host's patches (a no-op sends none)."""

    def __init__(self, fake: ApiHost, monkeypatch: Any) -> None:
        self.count, self.patch = 0, fake.patch
        monkeypatch.setattr("workloads.host.patch", self)

    def __call__(self, *args: Any) -> dict[str, Any]:
        self.count += 1
        return self.patch(*args)


def stamp(fake: ApiHost, key: tuple[str, str, str]) -> tuple[Any, Any]:
    meta = fake.objects[key]["metadata"]
    return meta["generation"], meta["resourceVersion"]


def post(user: Any, key: tuple[str, str, str], operation: str, body: Any = None) -> Any:
    return client_for(user).post(f"{api(key[0], key[2])}{operation}/", body, format="json")


def test_resume_on_a_pinpod_is_refused_as_pause_is_and_writes_nothing(fake_host, developer, client, monkeypatch):
    key = put(fake_host, "PinPod")
    before = copy.deepcopy(fake_host.objects)
    patches = Patches(fake_host, monkeypatch)
    client.force_login(developer)

    answers = {op: post(developer, key, op) for op in ("pause", "resume")}
    on_page = client.post(f"{page('PinPod', key[2])}resume/", **HX)

    for response in answers.values():
        body = response.json()["error"]
        assert response.status_code == 400, body
        assert [f["path"] for f in body["fields"]] == ["spec.operations.paused"]
        assert "a PinPod cannot be paused" in body["fields"][0]["message"]
    assert on_page.status_code == 400 and "a PinPod cannot be paused" in on_page.content.decode()
    assert patches.count == 0 and fake_host.objects == before
    assert not AuditEvent.objects.filter(action__startswith="workload.").exists()


def test_start_on_a_running_pinpod_writes_nothing_on_the_api_and_the_page(fake_host, developer, client, monkeypatch):
    key = put(fake_host, "PinPod")
    before = stamp(fake_host, key)
    patches = Patches(fake_host, monkeypatch)
    client.force_login(developer)

    response = post(developer, key, "start")
    on_page = client.post(f"{page('PinPod', key[2])}start/", **HX)

    assert response.status_code == 200, response.json()
    assert response["ETag"] == f'"{before[0]}"'
    assert on_page.status_code == 200
    assert patches.count == 0 and stamp(fake_host, key) == before
    assert not AuditEvent.objects.filter(action="workload.start").exists()


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_writes_an_operation_once_and_its_repeat_never(fake_host, developer, monkeypatch, kind):
    key = put(fake_host, kind)
    patches = Patches(fake_host, monkeypatch)
    toggles = [("start", "stop")] if kind == "PinPod" else [("start", "stop"), ("resume", "pause")]

    for undo, do in toggles:
        count = patches.count
        assert post(developer, key, undo).status_code == 200  # already running: nothing to undo
        assert patches.count == count
        first = post(developer, key, do)
        assert first.status_code == 200, first.json()
        written = stamp(fake_host, key)
        again = post(developer, key, do)
        assert again.status_code == 200 and stamp(fake_host, key) == written
        assert post(developer, key, undo).status_code == 200 and stamp(fake_host, key)[0] == written[0] + 1
        assert post(developer, key, undo).status_code == 200 and stamp(fake_host, key)[0] == written[0] + 1

    assert patches.count == 2 * len(toggles)
    for undo, do in toggles:
        assert AuditEvent.objects.filter(action=f"workload.{do}").count() == 1
        assert AuditEvent.objects.filter(action=f"workload.{undo}").count() == 1


@pytest.mark.parametrize("kind", [kind for kind, info in KINDS.items() if info.scalable])
def test_scaling_to_the_replicas_the_spec_says_writes_nothing(fake_host, developer, monkeypatch, kind):
    key = put(fake_host, kind)
    replicas = fake_host.objects[key]["spec"].get("replicas", 1)
    patches = Patches(fake_host, monkeypatch)

    same = post(developer, key, "scale", {"replicas": replicas})
    other = post(developer, key, "scale", {"replicas": replicas + 1})

    assert same.status_code == other.status_code == 200
    assert patches.count == 1 and AuditEvent.objects.filter(action="workload.scale").count() == 1


def test_a_pinapp_without_replicas_scaled_to_its_default_of_one_writes_nothing(fake_host, developer, monkeypatch):
    key = put(fake_host, "PinApp")
    fake_host.objects[key]["spec"].pop("replicas", None)
    patches = Patches(fake_host, monkeypatch)

    assert post(developer, key, "scale", {"replicas": 1}).status_code == 200
    assert patches.count == 0


def test_a_restart_writes_each_time_it_is_asked_at_a_new_time(web, developer, monkeypatch):
    key = ("PinApp", "proj-ads", "web")
    patches = Patches(web, monkeypatch)
    stamps = iter(["2026-11-22T01:00:00Z", "2026-11-22T01:00:01Z"])  # the request times of the two restarts
    monkeypatch.setattr("workloads.operations.rfc3339", lambda _now: next(stamps))

    for _ in range(2):
        assert post(developer, key, "restart").status_code == 200

    assert patches.count == 2 and web.objects[key]["spec"]["operations"]["restartedAt"] == "2026-11-22T01:00:01Z"
    assert AuditEvent.objects.filter(action="workload.restart").count() == 2


@pytest.mark.parametrize(
    ("operation", "body", "field"),
    [("restart", None, "restartedAt"), ("restart-container", {"container": "app"}, "restartContainer")],
)
def test_a_pinscaler_runs_no_pods_so_it_cannot_be_restarted(fake_host, developer, monkeypatch, operation, body, field):
    key = put(fake_host, "PinScaler")
    before = copy.deepcopy(fake_host.objects)
    patches = Patches(fake_host, monkeypatch)

    response = post(developer, key, operation, body)

    error = response.json()["error"]
    assert response.status_code == 400, error
    assert [f["path"] for f in error["fields"]] == [f"spec.operations.{field}"]
    assert "runs no pods of its own" in error["fields"][0]["message"]
    assert patches.count == 0 and fake_host.objects == before
