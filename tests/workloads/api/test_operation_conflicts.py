"""Operations race the operator and the federation, which write the host object's status and metadata all the
time: a merge patch conditional on the resourceVersion just read then loses with the apiserver's 409. Without
If-Match the operation is retried on a fresh read (it must not fail 1 time in 5); with If-Match it is a 409
naming both versions only when the spec moved past the one sent (a status write does not move it)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from base.models import AuditEvent
from tests.support.api_host import ApiHost, client_for
from workloads import conflicts

pytestmark = pytest.mark.django_db
ONE = "/api/v1/projects/ads/workloads/PinApp/web/"
KEY = ("PinApp", "proj-ads", "web")
RACES = 4  # lost writes in a row an operation survives (of its 5 attempts)
OPERATIONS = [
    ("pause", None),
    ("resume", None),
    ("stop", None),
    ("start", None),
    ("restart", None),
    ("restart-container", {"container": "app"}),
    ("scale", {"replicas": 3}),
]


class Racer:
    """Before each of the host's first ``times`` patches, another writer changes the object, so the patch's
    resourceVersion is stale and the fake apiserver answers 409 as the real one does."""

    def __init__(self, fake: ApiHost, times: int, *, spec: bool = False) -> None:
        self.fake, self.times, self.spec, self.patches = fake, times, spec, 0
        self.patch = fake.patch

    def __call__(self, kind: str, namespace: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
        self.patches += 1
        if self.patches <= self.times:
            self.write_first(kind, namespace, name)
        return self.patch(kind, namespace, name, body)

    def write_first(self, kind: str, namespace: str, name: str) -> None:
        obj = copy.deepcopy(self.fake.objects[(kind, namespace, name)])
        if self.spec:  # someone else's change of the spec: a new generation
            obj["spec"]["replicas"] = int(obj["spec"].get("replicas") or 0) + 1
        else:  # the operator's status write: a new resourceVersion, the same generation
            obj["status"]["observedGeneration"] = self.patches
        self.fake.put(obj)


def racing(fake: ApiHost, monkeypatch: Any, times: int, *, spec: bool = False) -> Racer:
    racer = Racer(fake, times, spec=spec)
    monkeypatch.setattr("workloads.host.patch", racer)
    return racer


def generation(fake: ApiHost) -> str:
    return str(fake.objects[KEY]["metadata"]["generation"])


@pytest.mark.parametrize(("operation", "body"), OPERATIONS)
def test_an_operation_without_if_match_is_retried_past_concurrent_status_writes(
    web, developer, monkeypatch, operation, body
):
    undone = {"resume": "paused", "start": "stopped"}.get(operation)
    if undone:  # resume and start on a running workload write nothing: begin from a paused or stopped one
        live = copy.deepcopy(web.objects[KEY])
        live["spec"]["operations"] = {undone: True}
        web.put(live)
    racer = racing(web, monkeypatch, times=RACES)

    response = client_for(developer).post(f"{ONE}{operation}/", body, format="json")

    assert response.status_code == 200, response.json()
    assert racer.patches == RACES + 1
    assert response["ETag"] == f'"{generation(web)}"'
    assert AuditEvent.objects.filter(action=f"workload.{operation}").count() == 1


def test_the_retried_operation_applies_to_the_latest_object(web, developer, monkeypatch):
    racing(web, monkeypatch, times=2)

    response = client_for(developer).post(f"{ONE}pause/")

    assert response.status_code == 200, response.json()
    live = web.objects[KEY]
    assert live["spec"]["operations"]["paused"] is True
    assert live["status"]["observedGeneration"] == 2  # the concurrent writes are kept, not lost


def test_a_current_if_match_survives_status_writes(web, developer, monkeypatch):
    client = client_for(developer)
    etag = client.get(ONE)["ETag"]
    racing(web, monkeypatch, times=2)

    response = client.post(f"{ONE}pause/", HTTP_IF_MATCH=etag)

    assert response.status_code == 200, response.json()
    assert web.objects[KEY]["spec"]["operations"]["paused"] is True


def test_a_stale_if_match_is_still_a_409_naming_both_versions(web, developer, monkeypatch):
    client = client_for(developer)
    stale = client.get(ONE)["ETag"]
    client.post(f"{ONE}scale/", {"replicas": 1}, format="json")  # someone else's change: a new generation
    racer = racing(web, monkeypatch, times=2)
    before = copy.deepcopy(web.objects)

    refused = client.post(f"{ONE}pause/", HTTP_IF_MATCH=stale)

    body = refused.json()["error"]
    assert refused.status_code == 409, body
    assert f"you saw version {stale.strip(chr(34))}" in body["message"] and generation(web) in body["message"]
    assert racer.patches == 0 and web.objects == before


def test_a_spec_change_racing_an_if_match_is_a_409_naming_both_versions(web, developer, monkeypatch):
    client = client_for(developer)
    etag = client.get(ONE)["ETag"]
    racer = racing(web, monkeypatch, times=1, spec=True)

    refused = client.post(f"{ONE}pause/", HTTP_IF_MATCH=etag)

    body = refused.json()["error"]
    assert refused.status_code == 409, body
    assert etag.strip('"') in body["message"] and generation(web) in body["message"]
    assert body["fields"] == [{"path": "version", "message": f"is {generation(web)}"}]
    assert racer.patches == 1 and "operations" not in web.objects[KEY]["spec"]
    assert not AuditEvent.objects.filter(action="workload.pause").exists()


def test_losing_every_attempt_is_a_409_and_writes_nothing(web, developer, monkeypatch):
    racer = racing(web, monkeypatch, times=conflicts.ATTEMPTS)

    refused = client_for(developer).post(f"{ONE}pause/")

    assert refused.status_code == 409, refused.json()
    assert "modified" in refused.json()["error"]["message"]
    assert racer.patches == conflicts.ATTEMPTS
    assert "operations" not in web.objects[KEY]["spec"]
    assert not AuditEvent.objects.filter(action="workload.pause").exists()


def test_the_pages_operations_share_the_retries(web, developer, client, monkeypatch):
    client.force_login(developer)
    racer = racing(web, monkeypatch, times=2)

    response = client.post("/workloads/ads/PinApp/web/operate/stop/", HTTP_HX_REQUEST="true")

    assert response.status_code == 200 and racer.patches == 3
    assert web.objects[KEY]["spec"]["operations"]["stopped"] is True
