"""The portal's ``metadata.annotations`` rule is the host apiserver's: what submit's validation refuses the
apiserver refuses too when sent directly, and what it takes (case-insensitive keys, exactly 256 KiB in all) the
apiserver stores. So preview and dry run, which run the same validation, never disagree with the host."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from base.errors import Invalid
from pincompute.specs import validate
from tests.support.provisioning import team_project
from tests.support.submission import on_host, pinapp
from workloads import host, services, submission

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
LIMIT = 256 * 1024


@pytest.fixture
def project(admin_user: Any, user: Any) -> Any:
    return team_project("ann", admin_user, user, grants={"ondemand": ("4", "8Gi", "0", "0")})


def annotated(name: str, annotations: dict[str, str]) -> dict[str, Any]:
    doc = pinapp(name)
    doc["metadata"]["annotations"] = annotations
    return doc


def test_what_the_portal_takes_the_apiserver_stores(project, user, cluster_api_clients):
    good = {"Example.COM/Owner": "ads", "note": "", "big": "v" * (LIMIT - 27)}  # 262144 bytes: the limit

    services.submit_workload(project, annotated("web", good), actor=user)

    assert on_host(cluster_api_clients["host"], project)["metadata"]["annotations"] == good


@pytest.mark.parametrize(
    "annotations",
    [{"x y": "v"}, {"x-<b>k</b>": "v"}, {"/x": "v"}, {"a/b/c": "v"}, {"a" * 64: "v"}, {"big": "v" * (LIMIT - 2)}],
    ids=["space", "html", "empty-prefix", "two-slashes", "64-characters", "over-256KiB"],
)
def test_what_the_portal_refuses_the_apiserver_refuses(project, user, cluster_api_clients, annotations):
    doc = annotated("refused", annotations)
    with pytest.raises(Invalid):
        services.submit_workload(project, doc, actor=user)
    manifest = submission.complete(project, copy.deepcopy(doc))
    assert any(e.path.startswith("metadata.annotations") for e in validate(manifest))

    with pytest.raises(Invalid):  # sent past the portal's validation: the host's own verdict
        host.create(manifest)

    assert on_host(cluster_api_clients["host"], project, name="refused") is None
