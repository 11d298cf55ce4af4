"""Every kind the CRDs install is watched by the portal and listed on /workloads/ (real apiserver: the host,
where workloads are persisted; the list reads the host's watch cache).

Regression: the watch cache and the catalog spelled the TrainingJob plural ``pinterestrainingjobs``
while the CRD says ``pinteresttrainingjobs``, so TrainingJobs never appeared on /workloads/.
The kinds and plurals here come from the apiserver, not from any registry in the code under test.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from kubernetes import client as k8s

from clusters import runtime
from devtools.localcp.nodes import api_client
from devtools.operator_process import install_crds
from projects.models import Membership, Project
from tests.support.examples import example

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
GROUP = "pincompute.io"
HOST = "host"


@pytest.fixture
def member_api(local_control_plane: Any) -> Iterator[k8s.ApiClient]:
    """The host with its CRDs installed exactly as the operator's ``install-crds --host-context`` does."""
    kubeconfig = str(local_control_plane.kubeconfig_path)
    install_crds(kubeconfig, [], host=HOST)
    api = api_client(kubeconfig, HOST)
    yield api
    api.close()


@pytest.fixture
def registered(local_control_plane: Any) -> Iterator[None]:
    call_command(
        "import_clusters",
        "--kubeconfig",
        str(local_control_plane.kubeconfig_path),
        *[f"--zone={c.name}={c.zone}" for c in local_control_plane.clusters],
    )
    yield
    runtime.shutdown()


@pytest.fixture
def project_namespace(member_api: k8s.ApiClient, user: Any) -> Iterator[str]:
    project = Project.objects.create(name=f"kinds-{uuid.uuid4().hex[:6]}", team="kinds", cost_center="CC-1")
    Membership.objects.create(project=project, user=user, role="developer")
    core = k8s.CoreV1Api(member_api)
    core.create_namespace({"metadata": {"name": project.namespace}})
    yield project.namespace
    core.delete_namespace(project.namespace)


def installed_plurals(api: k8s.ApiClient) -> dict[str, str]:
    """{kind: plural} of every pincompute.io CRD the apiserver serves."""
    crds = k8s.ApiextensionsV1Api(api).list_custom_resource_definition().items
    return {crd.spec.names.kind: crd.spec.names.plural for crd in crds if crd.spec.group == GROUP}


def test_every_installed_kind_is_watched_and_listed_on_the_workloads_page(
    member_api, registered, project_namespace, user, client
):
    platform = {"ProjectQuota", "MemberCluster"}  # the host's own objects, not workloads
    installed = {k: p for k, p in installed_plurals(member_api).items() if k not in platform}
    assert len(installed) == 8, installed
    custom = k8s.CustomObjectsApi(member_api)
    names = {}
    for kind, plural in installed.items():
        manifest = example(kind)
        names[kind] = f"kinds-{kind.lower()}"
        manifest["metadata"] = {"name": names[kind], "namespace": project_namespace}
        custom.create_namespaced_custom_object(GROUP, "v1", project_namespace, plural, manifest)
    client.force_login(user)
    cache = runtime.host_cache()
    assert cache is not None
    assert cache.wait_synced(30), cache.last_error

    deadline, unlisted = time.monotonic() + 20, set(installed)
    while unlisted and time.monotonic() < deadline:
        page = client.get("/workloads/")
        assert page.status_code == 200
        unlisted = {kind for kind, name in names.items() if f">{name}<".encode() not in page.content}
        time.sleep(0.5)
    watched = {spec.plural for spec in cache.resources}
    unwatched = {plural for plural in installed.values() if plural not in watched}

    assert (unwatched, unlisted) == (set(), set())
