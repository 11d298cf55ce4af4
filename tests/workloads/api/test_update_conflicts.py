"""Updates (PUT, merge PATCH) race the operator's and the federation's status writes as operations do: the replace
conditional on the resourceVersion just read loses with the apiserver's 409. It is retried on a fresh read, past
status writes; a caller's version (If-Match, or the version a PATCH was applied to) is a 409 naming both versions
only when the spec moved past it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from base.models import AuditEvent
from tests.support.api_host import ApiHost, client_for
from tests.support.workloads_api import ONE, document
from workloads import conflicts

pytestmark = pytest.mark.django_db
KEY = ("PinApp", "proj-ads", "web")


class ReplaceRacer:
    """Before each of the host's first ``times`` replaces another writer changes the object (its status, or with
    ``spec`` its spec): the replace's resourceVersion is stale and the fake apiserver answers 409."""

    def __init__(self, fake: ApiHost, times: int, *, spec: bool = False) -> None:
        self.fake, self.times, self.spec, self.calls = fake, times, spec, 0
        self.replace = fake.replace

    def __call__(self, manifest: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if self.calls <= self.times:
            obj = copy.deepcopy(self.fake.objects[KEY])
            if self.spec:
                obj["spec"]["replicas"] = int(obj["spec"].get("replicas") or 0) + 1
            else:
                obj["status"]["observedGeneration"] = 100 + self.calls
            self.fake.put(obj)
        return self.replace(manifest)


def racing(fake: ApiHost, monkeypatch: Any, times: int, *, spec: bool = False) -> ReplaceRacer:
    racer = ReplaceRacer(fake, times, spec=spec)
    monkeypatch.setattr("workloads.host.replace", racer)
    return racer


@pytest.mark.parametrize("if_match", [False, True])
def test_a_put_is_retried_past_status_writes(web, developer, monkeypatch, if_match):
    client = client_for(developer)
    headers = {"HTTP_IF_MATCH": client.get(ONE)["ETag"]} if if_match else {}
    racer = racing(web, monkeypatch, times=conflicts.ATTEMPTS - 1)

    response = client.put(ONE, document("web", replicas=4), format="json", **headers)

    assert response.status_code == 200, response.json()
    assert racer.calls == conflicts.ATTEMPTS and web.objects[KEY]["spec"]["replicas"] == 4
    assert web.objects[KEY]["status"]["observedGeneration"] == 100 + conflicts.ATTEMPTS - 1  # theirs kept
    assert AuditEvent.objects.filter(action="workload.update").count() == 1


def test_a_merge_patch_is_retried_past_status_writes(web, developer, monkeypatch):
    racer = racing(web, monkeypatch, times=2)

    response = client_for(developer).patch(ONE, {"spec": {"replicas": 5}}, format="json")

    assert response.status_code == 200, response.json()
    assert racer.calls == 3 and web.objects[KEY]["spec"]["replicas"] == 5


def test_a_spec_change_meanwhile_is_a_409_naming_both_versions_and_nothing_is_written(web, developer, monkeypatch):
    client = client_for(developer)
    etag = client.get(ONE)["ETag"].strip('"')
    racer = racing(web, monkeypatch, times=1, spec=True)

    refused = client.patch(ONE, {"spec": {"replicas": 7}}, format="json")  # applied to version `etag`

    body = refused.json()["error"]
    assert refused.status_code == 409, body
    live = str(web.objects[KEY]["metadata"]["generation"])
    assert f"you edited version {etag}" in body["message"] and live in body["message"] and live != etag
    assert racer.calls == 1 and web.objects[KEY]["spec"]["replicas"] != 7
    assert not AuditEvent.objects.filter(action="workload.update").exists()


def test_losing_every_attempt_is_the_apiservers_409(web, developer, monkeypatch):
    racer = racing(web, monkeypatch, times=conflicts.ATTEMPTS)

    refused = client_for(developer).put(ONE, document("web", replicas=4), format="json")

    assert refused.status_code == 409 and "modified" in refused.json()["error"]["message"]
    assert racer.calls == conflicts.ATTEMPTS and web.objects[KEY]["spec"]["replicas"] != 4
