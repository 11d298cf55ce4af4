"""The host module and the operations against the real host apiserver: its 400 for a name in the path has no
``details.causes`` (it was a TypeError, a 500); a name no object can have is never sent; a restart of every pod
drops the pod an earlier restart named (a merge patch keeps what it does not mention)."""

from __future__ import annotations

from typing import Any

import pytest

from base.errors import Invalid, NotFound
from pincompute import GROUP, VERSION
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.submission import on_host, pinapp
from workloads import host, services

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


@pytest.fixture
def project(admin_user: Any, user: Any) -> Any:
    return team_project("ops", admin_user, user, grants={"ondemand": ("4", "8Gi", "0", "0")})


def test_the_apiservers_400_for_a_name_is_invalid_about_the_whole_request(project):
    def read(api: Any) -> Any:
        return api.get_namespaced_custom_object(GROUP, VERSION, project.namespace, "pinapps", "%")

    with pytest.raises(Invalid) as refused:
        host._call("read PinApp/%", read)

    assert refused.value.fields == () and "%" in refused.value.message
    with pytest.raises(NotFound):  # the module's own reads never send it
        host.get("PinApp", project.namespace, "%")


def test_restarting_every_pod_drops_the_pod_an_earlier_restart_named(project, user, cluster_api_clients):
    services.submit_workload(project, pinapp(), actor=user)
    one = {"container": "app", "requestedAt": "2026-11-22T00:00:00Z", "pod": "web-local-1a-abc"}
    host.patch("PinApp", project.namespace, "web", {"spec": {"operations": {"restartContainer": one}}})

    services.operate_workload(project, "PinApp", "web", "restart-container", actor=user, container="app")

    request = on_host(cluster_api_clients["host"], project)["spec"]["operations"]["restartContainer"]
    assert request["container"] == "app" and "pod" not in request
