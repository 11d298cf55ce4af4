"""PUT's preconditions (RFC 9110 13.1): If-Match, any value and `*` included, holds only for a workload that exists,
so a client updating the version it read never re-creates one deleted meanwhile (a probe saw `If-Match: "1"`
bring back a deleted workload with 201); If-None-Match: * holds only for one that does not (create only)."""

from __future__ import annotations

import copy

import pytest

from base.models import AuditEvent
from tests.support.api_host import client_for
from tests.support.workloads_api import ONE, document, error

pytestmark = pytest.mark.django_db
GONE = "/api/v1/projects/ads/workloads/PinApp/gone/"


@pytest.mark.parametrize("if_match", ['"1"', "*", 'W/"1"', "7"])
def test_if_match_on_a_missing_workload_is_a_409_and_creates_nothing(web, developer, if_match):
    before = copy.deepcopy(web.objects)

    refused = client_for(developer).put(GONE, document("gone"), format="json", HTTP_IF_MATCH=if_match)

    body = error(refused, 409)
    assert "does not exist" in body["message"] and body["fields"] == [
        {"path": "version", "message": "no such workload"}
    ]
    assert web.objects == before and not AuditEvent.objects.filter(action="workload.create").exists()


def test_a_deleted_workload_is_not_brought_back_by_its_old_etag(web, developer):
    client = client_for(developer)
    etag = client.get(ONE)["ETag"]
    assert client.delete(ONE, HTTP_IF_MATCH=etag).status_code == 204
    web.objects.pop(("PinApp", "proj-ads", "web"), None)  # the federation's finalizer done: the object is gone

    refused = client.put(ONE, document("web"), format="json", HTTP_IF_MATCH=etag)

    assert refused.status_code == 409 and ("PinApp", "proj-ads", "web") not in web.objects


def test_if_none_match_star_creates_only(web, developer):
    client = client_for(developer)

    created = client.put(GONE, document("gone"), format="json", HTTP_IF_NONE_MATCH="*")
    again = client.put(GONE, document("gone", replicas=5), format="json", HTTP_IF_NONE_MATCH="*")
    dry = client.put(f"{ONE}?dryRun=true", document("web"), format="json", HTTP_IF_NONE_MATCH="*")

    assert created.status_code == 201
    assert "already exists" in error(again, 409)["message"] and "already exists" in error(dry, 409)["message"]
    assert web.objects[("PinApp", "proj-ads", "gone")]["spec"].get("replicas") != 5


@pytest.mark.parametrize(
    ("headers", "field"),
    [
        ({"HTTP_IF_NONE_MATCH": '"1"'}, "If-None-Match"),
        ({"HTTP_IF_NONE_MATCH": "*", "HTTP_IF_MATCH": '"1"'}, "If-None-Match"),
    ],
)
def test_other_preconditions_are_named(web, developer, headers, field):
    refused = client_for(developer).put(ONE, document("web"), format="json", **headers)

    assert field in [f["path"] for f in error(refused, 400)["fields"]]


def test_without_preconditions_put_still_creates_and_updates(web, developer):
    client = client_for(developer)

    assert client.put(GONE, document("gone"), format="json").status_code == 201
    assert client.put(GONE, document("gone", replicas=2), format="json").status_code == 200


@pytest.mark.parametrize("if_match", ['"' + "9" * 5000 + '"', "9" * 20])
def test_an_if_match_no_generation_can_have_is_a_400_that_does_not_echo_it(web, developer, if_match):
    refused = client_for(developer).post(f"{ONE}pause/", HTTP_IF_MATCH=if_match)

    body = error(refused, 400)
    assert [f["path"] for f in body["fields"]] == ["If-Match"] and "9" * 40 not in refused.content.decode()


@pytest.mark.parametrize("if_match", ["", "abc", '"1'])
def test_a_malformed_if_match_on_delete_is_a_400_naming_it_and_deletes_nothing(web, developer, if_match):
    before = copy.deepcopy(web.objects)

    refused = client_for(developer).delete(ONE, HTTP_IF_MATCH=if_match)

    assert [f["path"] for f in error(refused, 400)["fields"]] == ["If-Match"]
    assert web.objects == before and not AuditEvent.objects.filter(action="workload.delete").exists()
