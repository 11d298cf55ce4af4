"""Provisioning binds the rights on a project's Secrets/ConfigMaps to the identities the deployment names (the chart's
settings, per release): the portal's edit on the host (configs/host_objects.py writes there), the federation's read on
the host and its copies on the members; nothing bound when no identity is named (the local stack's admins)."""

from __future__ import annotations

import pytest
from django.test import override_settings

from pincompute.federation_rights import BINDING_NAME, PORTAL_BINDING_NAME
from pincompute.tenancy import host_manifests, member_manifests
from projects.provisioning import tenant_of

pytestmark = pytest.mark.django_db
CHART = {  # what deploy/helm/pinconsole/templates/config.yaml sets for release "r1" in namespace "pc"
    "PORTAL_CONFIGS_USERNAMES": [
        "system:serviceaccount:pc:r1-pinconsole-web",
        "system:serviceaccount:pc:r1-pinconsole-worker",
    ],
    "PORTAL_CONFIGS_ROLE": "r1-pinconsole-portal-project-configs",
    "FEDERATION_OPERATOR_USERNAME": "system:serviceaccount:pc:r1-pinconsole-operator",
    "FEDERATION_HOST_CONFIGS_ROLE": "r1-pinconsole-federation-project-configs",
    "FEDERATION_MEMBER_OPERATOR_USERNAME": "system:serviceaccount:m:r1-pinconsole-operator",
    "FEDERATION_MEMBER_COPIES_ROLE": "r1-pinconsole-federation-config-copies",
}


def _bindings(manifests: list[dict]) -> dict[str, tuple[str, str, list[str]]]:
    return {
        m["metadata"]["name"]: (m["metadata"]["namespace"], m["roleRef"]["name"], [s["name"] for s in m["subjects"]])
        for m in manifests
        if m["kind"] == "RoleBinding" and m["metadata"]["name"] in (BINDING_NAME, PORTAL_BINDING_NAME)
    }


@override_settings(**CHART)
def test_the_chart_named_identities_get_their_rights_in_the_project_namespace(project):
    tenant = tenant_of(project)

    assert _bindings(host_manifests(tenant)) == {
        PORTAL_BINDING_NAME: (project.namespace, CHART["PORTAL_CONFIGS_ROLE"], CHART["PORTAL_CONFIGS_USERNAMES"]),
        BINDING_NAME: (
            project.namespace,
            CHART["FEDERATION_HOST_CONFIGS_ROLE"],
            [CHART["FEDERATION_OPERATOR_USERNAME"]],
        ),
    }
    assert _bindings(member_manifests(tenant)) == {
        BINDING_NAME: (
            project.namespace,
            CHART["FEDERATION_MEMBER_COPIES_ROLE"],
            [CHART["FEDERATION_MEMBER_OPERATOR_USERNAME"]],
        ),
    }


@override_settings(PORTAL_CONFIGS_USERNAMES=[], FEDERATION_OPERATOR_USERNAME="", FEDERATION_MEMBER_OPERATOR_USERNAME="")
def test_no_identity_named_no_binding(project):
    tenant = tenant_of(project)

    assert _bindings(host_manifests(tenant)) == {} == _bindings(member_manifests(tenant))
