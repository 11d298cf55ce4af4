"""Writes whose answer from the host was lost (``host.OutcomeUnknown``: a read timeout or a cut connection after
the request was sent; it is never sent again), resolved by the services through the API: a create that landed
is a 201 with its audit row, someone else's object is a 409, an absent one a 503 saying the outcome is unknown;
an operation is applied at most once: the patch this request sent found applied is a success (changed,
audited), an object that moved on without it is patched again on a fresh read, one still at the version
patched is a 503. The fake host mirrors the real one: the object read back is what the host holds."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from base.errors import Conflict
from base.models import AuditEvent
from tests.support.api_host import ApiHost, client_for
from tests.support.workloads_api import NEW, document
from workloads import host
from workloads.submission import REQUEST_ANNOTATION

pytestmark = pytest.mark.django_db
ONE = "/api/v1/projects/ads/workloads/PinApp/web/"
KEY = ("PinApp", "proj-ads", "web")


class Losing:
    """``workloads.host.<verb>`` whose answers are lost: ``lands`` says whether the write reached the host first."""

    def __init__(self, fake: ApiHost, verb: str, *, lands: bool, times: int = 1) -> None:
        self.fake, self.verb, self.lands, self.times, self.calls = fake, verb, lands, times, 0
        self.real = getattr(fake, verb)

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        self.calls += 1
        if self.calls > self.times:
            return self.real(*args, **kwargs)
        if self.lands:
            self.real(*args, **kwargs)
        raise host.OutcomeUnknown(f"{self.verb} on host: its answer was lost (ReadTimeoutError: ...)")


def losing(fake: ApiHost, monkeypatch: Any, verb: str, *, lands: bool, times: int = 1) -> Losing:
    lost = Losing(fake, verb, lands=lands, times=times)
    monkeypatch.setattr(f"workloads.host.{verb}", lost)
    return lost


def audits(action: str, name: str) -> int:
    return AuditEvent.objects.filter(action=action, target_name=name).count()


def test_a_create_that_landed_is_a_201_with_its_audit_row(fake_host, developer, monkeypatch):
    lost = losing(fake_host, monkeypatch, "create", lands=True)

    response = client_for(developer).post(NEW, document("shop"), format="json")

    assert response.status_code == 201, response.json()
    assert lost.calls == 1
    assert fake_host.objects[("PinApp", "proj-ads", "shop")]["metadata"]["annotations"][REQUEST_ANNOTATION]
    assert audits("workload.create", "shop") == 1


def test_a_put_that_creates_and_landed_answers_as_created(fake_host, developer, monkeypatch):
    losing(fake_host, monkeypatch, "create", lands=True)

    response = client_for(developer).put(f"{NEW}PinApp/shop/", document("shop"), format="json")

    assert response.status_code == 201, response.json()
    assert audits("workload.create", "shop") == 1


def test_someone_elses_object_of_that_name_is_the_usual_409(fake_host, developer, monkeypatch):
    theirs = document("shop")
    theirs["metadata"].update(namespace="proj-ads", annotations={REQUEST_ANNOTATION: "another-request"})
    lost = losing(fake_host, monkeypatch, "create", lands=False)
    fake_host.put(copy.deepcopy(theirs) | {"apiVersion": "pincompute.io/v1"})

    response = client_for(developer).post(NEW, document("shop"), format="json")

    assert response.status_code == 409, response.json()
    assert lost.calls == 1 and audits("workload.create", "shop") == 0


def test_a_create_that_cannot_be_found_is_a_503_saying_the_outcome_is_unknown(fake_host, developer, monkeypatch):
    lost = losing(fake_host, monkeypatch, "create", lands=False)

    response = client_for(developer).post(NEW, document("shop"), format="json")

    assert response.status_code == 503, response.json()
    message = str(response.json())
    assert "unknown" in message and "GET /api/v1/projects/ads/workloads/PinApp/shop/" in message
    assert "nothing was changed" not in message.lower()
    assert lost.calls == 1 and audits("workload.create", "shop") == 0


def test_a_restart_whose_patch_landed_is_applied_once_and_audited(web, developer, monkeypatch):
    before = web.objects[KEY]["metadata"]["generation"]
    lost = losing(web, monkeypatch, "patch", lands=True)

    response = client_for(developer).post(f"{ONE}restart/", {}, format="json")

    assert response.status_code == 200, response.json()
    assert lost.calls == 1  # never patched again
    assert web.objects[KEY]["metadata"]["generation"] == before + 1
    assert audits("workload.restart", "web") == 1


def test_a_restart_lost_while_the_object_moved_on_is_patched_again_on_a_fresh_read(web, developer, monkeypatch):
    before = web.objects[KEY]["metadata"]["generation"]
    lost = losing(web, monkeypatch, "patch", lands=False)
    real = web.get

    def get(kind: str, namespace: str, name: str) -> dict[str, Any]:
        if lost.calls == 1 and not moved:  # the operator's status write after the lost patch
            obj = copy.deepcopy(web.objects[KEY])
            obj["status"]["observedGeneration"] = 99
            web.put(obj)
            moved.append(1)
        return real(kind, namespace, name)

    moved: list[int] = []
    monkeypatch.setattr("workloads.host.get", get)

    response = client_for(developer).post(f"{ONE}restart/", {}, format="json")

    assert response.status_code == 200, response.json()
    assert lost.calls == 2  # the lost patch could no longer land (stale resourceVersion): written once, anew
    assert web.objects[KEY]["metadata"]["generation"] == before + 1
    assert audits("workload.restart", "web") == 1


def test_a_restart_lost_before_anything_changed_is_a_503_and_not_sent_again(web, developer, monkeypatch):
    before = web.objects[KEY]["metadata"]["generation"]
    lost = losing(web, monkeypatch, "patch", lands=False)

    response = client_for(developer).post(f"{ONE}restart/", {}, format="json")

    assert response.status_code == 503, response.json()
    message = str(response.json())
    assert "unknown" in message and "GET /api/v1/projects/ads/workloads/PinApp/web/" in message
    assert lost.calls == 1 and web.objects[KEY]["metadata"]["generation"] == before
    assert audits("workload.restart", "web") == 0


def test_an_operation_the_spec_already_says_still_writes_nothing(web, developer, monkeypatch):
    lost = losing(web, monkeypatch, "patch", lands=True)

    response = client_for(developer).post(f"{ONE}start/", {}, format="json")  # web is running

    assert response.status_code == 200, response.json()
    assert lost.calls == 0 and audits("workload.start", "web") == 0


def test_an_update_whose_answer_was_lost_is_not_a_409_against_its_own_new_version(web, developer, monkeypatch):
    client = client_for(developer)
    etag = client.get(ONE)["ETag"]
    real, calls = web.replace, []

    def replace(manifest: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        if len(calls) == 1:  # it lands, its answer is lost, and the transport's resend is stale: the host's 409
            real(copy.deepcopy(manifest))
            raise Conflict("update PinApp/web: the object has been modified; please apply your changes again")
        return real(manifest)

    monkeypatch.setattr("workloads.host.replace", replace)

    response = client.put(ONE, document("web", replicas=5), format="json", HTTP_IF_MATCH=etag)

    assert response.status_code == 200, response.json()
    assert len(calls) == 1  # written once
    assert web.objects[KEY]["spec"]["replicas"] == 5
    assert audits("workload.update", "web") == 1
