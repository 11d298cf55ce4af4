"""A workload that uses a Secret, ConfigMap or key the project does not hold is refused at submission, the field
named, nothing written; one whose references resolve is accepted (against the real host)."""

from __future__ import annotations

import uuid

import pytest

from base.errors import Invalid
from configs import services as configs
from tests.support.provisioning import onboard
from tests.support.submission import APP, on_host, pinapp
from workloads import services

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
C = "spec.template.containers[0]"


@pytest.fixture
def project(admin_user, user):
    return onboard(
        f"ref-{uuid.uuid4().hex[:6]}",
        admin_user,
        members=[("user", admin_user.username, "owner"), ("user", user.username, "developer")],
        grants={"ondemand": ("4", "8Gi", "0", "0")},
    )


def using(**container):
    return pinapp(template={"containers": [{**APP, **container}]})


def test_a_reference_to_a_missing_secret_or_key_is_refused_naming_the_field(project, user, cluster_api_clients):
    configs.create_config(project, "Secret", "db", {"user": "app"}, actor=user)
    missing_key = using(env=[{"name": "P", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}])
    missing_object = using(envFrom=[{"configMapRef": {"name": "settings"}}])

    for document, path in [
        (missing_key, f"{C}.env[0].valueFrom.secretKeyRef.key"),
        (missing_object, f"{C}.envFrom[0].configMapRef.name"),
    ]:
        with pytest.raises(Invalid) as refused:
            services.submit_workload(project, document, actor=user)
        assert path in {f.path for f in refused.value.fields}, refused.value.fields
    assert on_host(cluster_api_clients["host"], project) is None

    configs.create_config(project, "ConfigMap", "settings", {"mode": "fast"}, actor=user)
    accepted = services.submit_workload(project, missing_object, actor=user)
    assert accepted.created and on_host(cluster_api_clients["host"], project) is not None
