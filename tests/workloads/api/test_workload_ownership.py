"""A workload's ownership through the API: the ``pincompute.io/oncall`` and ``pincompute.io/links`` annotations
checked like every other field (a 400 naming the annotation, nothing written; the same on the dry run), and a
workload's answer carrying its team, on-call contact and links, each unset one its project's, read fresh."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pincompute.ownership import LINKS_ANNOTATION, ONCALL_ANNOTATION
from tests.support.api_host import client_for
from tests.support.workloads_api import NEW, document

pytestmark = pytest.mark.django_db
RUNBOOK = {"kind": "runbook", "title": "Runbook", "url": "https://wiki.example.com/shop"}


def annotated(**annotations: str) -> dict[str, Any]:
    doc = document()
    doc["metadata"]["annotations"] = annotations
    return doc


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "create"])
def test_a_bad_oncall_or_link_is_a_400_naming_the_annotation_and_nothing_is_written(fake_host, developer, dry_run):
    bad = annotated(**{ONCALL_ANNOTATION: "call bob", LINKS_ANNOTATION: json.dumps([{"title": "x", "url": "ftp://x"}])})

    response = client_for(developer).post(f"{NEW}?dryRun=true" if dry_run else NEW, bad, format="json")

    assert response.status_code == 400, response.json()
    paths = {f["path"] for f in response.json()["error"]["fields"]}
    assert {f"metadata.annotations.{ONCALL_ANNOTATION}", f"metadata.annotations.{LINKS_ANNOTATION}[0].url"} <= paths
    assert fake_host.objects == {}


def test_a_workload_shows_its_own_and_takes_the_rest_from_its_project(fake_host, project, developer):
    project.oncall, project.links = "#ads-oncall", [RUNBOOK]
    project.save()
    own = annotated(**{ONCALL_ANNOTATION: "shop@example.com"})

    created = client_for(developer).post(NEW, own, format="json")
    read = client_for(developer).get(f"{NEW}PinApp/shop/")

    assert created.status_code == 201, created.json()
    assert read.json()["ownership"] == {
        "team": "ads",  # completed from the project at submission: the workload's own spec.team
        "oncall": "shop@example.com",
        "links": [RUNBOOK],
        "inherited": ["links"],
    }
    project.links = []
    project.save()
    assert client_for(developer).get(f"{NEW}PinApp/shop/").json()["ownership"]["links"] == []  # read fresh


def test_the_workload_page_shows_who_owns_it(web, project, viewer, client):
    project.oncall, project.links = "https://pager.example.com/ads", [RUNBOOK]
    project.save()
    client.force_login(viewer)

    page = client.get("/workloads/ads/PinApp/web/").content.decode()

    assert 'href="https://pager.example.com/ads"' in page and 'data-link="runbook"' in page
    assert "data-inherited" in page and "On-call contact and links from <a" in page
