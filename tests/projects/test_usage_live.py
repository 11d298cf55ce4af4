"""Usage read from the real host apiserver through the portal's host watch cache: a workload written once on the
host is counted once (its shard on a member is not), and only once the federation's Admitted condition says so."""

from __future__ import annotations

import contextlib
import copy
import uuid

import pytest
from kubernetes import client

from clusters import runtime
from devtools.devstack import install_platform, register_one
from devtools.waiting import wait_for
from pincompute.kinds import KINDS
from projects.headroom import project_usage
from tests.support.factories import workload_cr
from tests.support.provisioning import onboard

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]
APPS = KINDS["PinApp"]


@pytest.fixture
def registered(local_control_plane):
    clusters = {}
    for name in ("host", "member-a"):
        clusters[name] = register_one(local_control_plane, local_control_plane.cluster(name))
        install_platform(clusters[name])
    yield clusters
    runtime.shutdown()


def test_a_workload_on_the_host_counts_once_and_only_once_admitted(registered, cluster_api_clients, admin_user):
    from console.celery import app

    before = app.conf.task_always_eager
    app.conf.CELERY_TASK_ALWAYS_EAGER = True  # provisioned on the host and member-a in-process
    try:
        project = onboard(f"use-{uuid.uuid4().hex[:6]}", admin_user, grants={"ondemand": ("8", "16Gi", "0", "20")})
    finally:
        app.conf.CELERY_TASK_ALWAYS_EAGER = before
    host = client.CustomObjectsApi(cluster_api_clients["host"])
    member = client.CustomObjectsApi(cluster_api_clients["member-a"])
    cr = workload_cr("ranker", project=project.name, admitted=None, clusters=())
    cr["metadata"].pop("creationTimestamp")
    cr.pop("status")
    args = (APPS.group, APPS.version, project.namespace, APPS.plural)
    try:
        host.create_namespaced_custom_object(*args, cr)
        member.create_namespaced_custom_object(*args, copy.deepcopy(cr))  # a shard: the full spec, never counted

        waiting = wait_for(lambda: project_usage(project).workloads, timeout=30, what="the host object in the cache")
        assert [(w.name, w.admitted, w.waiting) for w in waiting] == [
            ("ranker", False, "waiting for federation admission")
        ]
        assert project_usage(project).admitted[waiting[0].tier].cpu_milli == 0

        condition = {
            "type": "Admitted",
            "status": "True",
            "reason": "Admitted",
            "message": "fits",
            "lastTransitionTime": "2026-11-22T00:00:00Z",
        }
        placement = {"clusters": [{"cluster": "member-a", "zone": "local-1a", "shardIndex": 0, "shardCount": 1}]}
        host.patch_namespaced_custom_object_status(
            *args, "ranker", {"status": {"conditions": [condition], "placement": placement}}
        )

        admitted = wait_for(lambda: [w for w in project_usage(project).workloads if w.admitted], timeout=30)
        usage = project_usage(project)
        assert [(w.name, w.clusters) for w in admitted] == [("ranker", ("member-a",))]
        assert usage.admitted[admitted[0].tier] == admitted[0].request and usage.problems == []
    finally:
        for api in (host, member):
            with contextlib.suppress(client.ApiException):
                api.delete_namespaced_custom_object(*args, "ranker")
