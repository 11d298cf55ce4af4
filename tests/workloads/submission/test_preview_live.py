"""The preview API against the real host apiserver: created before the workload exists, unchanged for the same document
again (also for one another tool wrote with labels it owns, which only the live object's ``managedFields`` tell),
configured for a change, with the diff; nothing is written by a preview, for a viewer either."""

from __future__ import annotations

import pytest
from kubernetes import client

from pincompute import GROUP, VERSION
from tests.support.api_host import client_for
from tests.support.submission import on_host, owner_developer_viewer_project, pinapp
from workloads import services

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


@pytest.fixture
def project(admin_user, user, other_user):
    return owner_developer_viewer_project("prev", admin_user, user, other_user)


def previewed(user, project, document) -> dict:
    response = client_for(user).post(f"/api/v1/projects/{project.name}/workloads/preview/", document, format="json")
    assert response.status_code == 200, response.content[:500]
    return response.json()


def test_created_then_unchanged_then_configured_and_a_preview_writes_nothing(
    project, user, other_user, cluster_api_clients
):
    host = cluster_api_clients["host"]

    first = previewed(other_user, project, pinapp())  # a viewer
    assert first["action"] == "created" and first["live"] is None and on_host(host, project) is None
    services.submit_workload(project, pinapp(), actor=user)
    written = on_host(host, project)

    same = previewed(user, project, pinapp())
    grown = previewed(user, project, pinapp(replicas=3))

    assert same["action"] == "unchanged" and same["diff"]["spec"] == [] and same["document"] == same["live"]
    assert grown["action"] == "configured" and grown["diff"]["version"] == str(written["metadata"]["generation"])
    assert [(c["path"], c["before"], c["after"]) for c in grown["diff"]["spec"]] == [("spec.replicas", 2, 3)]
    assert on_host(host, project)["metadata"]["resourceVersion"] == written["metadata"]["resourceVersion"]


def test_labels_another_manager_owns_are_kept_so_its_object_applied_again_is_unchanged(
    project, user, cluster_api_clients
):
    document = pinapp("gitops")
    document["spec"]["project"] = project.name
    theirs = {**document, "metadata": {"name": "gitops", "labels": {"argocd.argoproj.io/instance": "ads-prod"}}}
    api = client.CustomObjectsApi(cluster_api_clients["host"])
    api.create_namespaced_custom_object(GROUP, VERSION, project.namespace, "pinapps", theirs, field_manager="argocd")

    shown = previewed(user, project, document)  # the document does not repeat the label the argocd manager owns

    assert shown["action"] == "unchanged", shown["diff"]
    assert shown["document"]["metadata"]["labels"] == {"argocd.argoproj.io/instance": "ads-prod"}
    assert "team" not in shown["document"]["spec"]  # no portal default added to a spec that never had it
