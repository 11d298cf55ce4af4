"""The live tests' ``register`` fixture installs the platform on a cluster once per process, and again when a test
changed what the install applied (tests/support/provisioning.py ``install_once``)."""

from __future__ import annotations

import pytest
from kubernetes import client

from clusters import runtime
from pincompute.tiers import priority_class_manifests
from tests.support import provisioning
from tests.support.provisioning import register  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db]


@pytest.fixture
def installs(monkeypatch):
    """The clusters each real install ran on."""
    ran: list[str] = []
    real = provisioning.install_platform

    def counting(cluster):
        ran.append(cluster.name)
        real(cluster)

    monkeypatch.setattr(provisioning, "install_platform", counting)
    return ran


def test_a_second_registration_installs_nothing_and_a_deleted_object_is_installed_again(register, installs):  # noqa: F811
    member = register("member-a")
    register("member-a")
    register("host")
    register("host")
    assert installs.count("member-a") <= 1 and installs.count("host") <= 1
    installs.clear()

    scheduling = client.SchedulingV1Api(runtime.api_for(member))
    name = priority_class_manifests()[0]["metadata"]["name"]
    scheduling.delete_priority_class(name)
    register("member-a")

    assert installs == ["member-a"]
    assert scheduling.read_priority_class(name).metadata.name == name


def test_an_edited_object_is_applied_again(register, installs):  # noqa: F811
    member = register("member-a")
    installs.clear()
    scheduling = client.SchedulingV1Api(runtime.api_for(member))
    name = priority_class_manifests()[0]["metadata"]["name"]
    scheduling.patch_priority_class(name, {"metadata": {"labels": {"edited-by": "a-test"}}})

    register("member-a")

    assert installs == ["member-a"]
