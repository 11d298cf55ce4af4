"""The API's dry run and create give the verdict the page's preview gives on ``metadata.annotations`` (keys as
Kubernetes' qualified names, string values, 256 KiB in all): a 400 naming the field, and nothing written; what
Kubernetes takes is taken (``tests/workloads/test_metadata_verdict.py`` has the rule and the page's side)."""

from __future__ import annotations

from typing import Any

import pytest

from base.models import AuditEvent
from tests.support.api_host import client_for
from tests.support.workloads_api import NEW, document

pytestmark = pytest.mark.django_db
LIMIT = 256 * 1024


def annotated(annotations: dict[str, Any]) -> dict[str, Any]:
    doc = document()
    doc["metadata"]["annotations"] = annotations
    return doc


@pytest.mark.parametrize(
    ("annotations", "path"),
    [
        ({"x y": "v"}, "metadata.annotations.x y"),
        ({"x-<b>k</b>": "v"}, "metadata.annotations.x-<b>k</b>"),
        ({"/x": "v"}, "metadata.annotations./x"),
        ({"big": "v" * LIMIT}, "metadata.annotations"),
    ],
    ids=["space", "html", "empty-prefix", "over-256KiB"],
)
@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "create"])
def test_a_key_or_size_kubernetes_refuses_is_a_400_naming_it_and_nothing_is_written(
    fake_host, developer, annotations, path, dry_run
):
    url = f"{NEW}?dryRun=true" if dry_run else NEW

    response = client_for(developer).post(url, annotated(annotations), format="json")

    body = response.json()
    assert response.status_code == 400, body
    assert path in {f["path"] for f in body["error"]["fields"]}
    assert fake_host.objects == {} and not AuditEvent.objects.filter(action="workload.create").exists()


def test_a_value_that_is_not_a_string_is_refused_on_both_paths(fake_host, developer):
    for url in (f"{NEW}?dryRun=true", NEW):
        response = client_for(developer).post(url, annotated({"n": 5}), format="json")
        assert response.status_code == 400
        assert any(f["path"].endswith("annotations.n") for f in response.json()["error"]["fields"])
    assert fake_host.objects == {}


def test_annotations_kubernetes_takes_pass_the_dry_run_and_are_written(fake_host, developer):
    good = {"Example.COM/Owner": "ads", "note": "", "big": "v" * (LIMIT - 27)}  # 262144 bytes in all: the limit

    dry = client_for(developer).post(f"{NEW}?dryRun=true", annotated(good), format="json")
    created = client_for(developer).post(NEW, annotated(good), format="json")

    assert dry.status_code == 200, dry.json()
    assert created.status_code == 201, created.json()
    assert fake_host.objects[("PinApp", "proj-ads", "shop")]["metadata"]["annotations"] == good
