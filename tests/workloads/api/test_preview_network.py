"""The preview says which of the project's NetworkPolicies a workload's pods fall under on every member and what
each admits (an owner's opening included), through the service, the API and the SDK's model."""

from __future__ import annotations

import pytest

import tests.support.sdk  # noqa: F401 - first: the SDK's own directory on sys.path, for pinconsole_sdk
from pincompute.kinds import MEMBER_CLUSTER
from pincompute.netpol import ISOLATION_POLICY, OPENINGS_POLICY
from projects.network import set_openings
from tests.support.api_host import client_for
from tests.support.kinds import member
from workloads.examples import example
from workloads.preview import preview

pytestmark = pytest.mark.django_db
URL = "/api/v1/projects/ads/workloads/preview/"


@pytest.fixture
def members(web, caches):
    for obj in (member("member-a", "local-1a"), member("member-b", "local-1b")):
        caches["host"].put(MEMBER_CLUSTER.plural, obj)
    return web


def test_the_preview_names_the_policies_the_pods_fall_under_with_the_openings(members, project, owner, viewer):
    set_openings(project, [{"port": 8080, "protocol": "UDP", "ingress": True}], actor=owner)
    project.refresh_from_db()
    document = example("PinApp", project="ads")

    from pinconsole_sdk.preview_models import WorkloadPreview  # after tests.support.sdk put it on sys.path

    shown = preview(project, document, actor=viewer)
    answer = client_for(viewer).post(URL, document, format="json")

    assert [p["name"] for p in shown.network] == [ISOLATION_POLICY, OPENINGS_POLICY]
    assert answer.status_code == 200
    body = answer.json()
    assert body["network"] == shown.network
    assert body["network"][1]["admits"] == ["UDP 8080 from the ingress"]
    assert WorkloadPreview.from_dict(body).network[0].admits[0] == "every port from the project's own pods"
