"""The portal's and the federation's rights on the projects' Secrets/ConfigMaps, per project namespace
(pincompute/federation_rights.py): with the chart applied and provisioning's RoleBindings in a project namespace, the
portal edits a project's Secrets on the host there and nowhere else, the operator reads them there and nowhere else
(actual 403s in kube-system), and on a member writes only its labelled copies there (the chart's
ValidatingAdmissionPolicy refuses an unlabelled Secret, RBAC any other namespace). The roles carry the release's name,
as the chart's settings tell provisioning."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
import yaml

from devtools.waiting import wait_for
from pincompute.federation_rights import BINDING_NAME, PORTAL_BINDING_NAME, right_of
from pincompute.tenancy import Tenant, host_manifests, member_manifests
from tests.support.chart_release import Release

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def _provisioned(release: Release, manifests: list[dict[str, object]]) -> Iterator[str]:
    """The project's namespace with what provisioning applies there (the namespace and the RoleBindings)."""
    namespace = f"proj-rights-{uuid.uuid4().hex[:6]}"
    objects = [o for o in manifests if o["kind"] in ("Namespace", "RoleBinding")]
    for obj in objects:
        meta = obj["metadata"]
        assert isinstance(meta, dict)
        meta["name" if obj["kind"] == "Namespace" else "namespace"] = namespace
    release.run("apply", "--server-side", "--field-manager=pinconsole-chart-test", "-f", "-",
                stdin=yaml.safe_dump_all(objects))  # fmt: skip
    try:
        yield namespace
    finally:
        release.run("delete", "namespace", namespace, "--wait=false", "--ignore-not-found")


def _tenant(release: Release) -> Tenant:
    """The project as provisioning builds it from the chart's settings (config.yaml) for ``release``."""
    portal = [release.sa("web"), release.sa("worker")]
    return Tenant(
        "rights",
        "proj-rights",
        "team",
        "cc",
        host_rights=(
            *right_of(PORTAL_BINDING_NAME, f"{release.fullname}-portal-project-configs", portal),
            *right_of(BINDING_NAME, f"{release.fullname}-federation-project-configs", [release.sa("operator")]),
        ),
        member_rights=right_of(BINDING_NAME, f"{release.fullname}-federation-config-copies", [release.sa("operator")]),
    )


@pytest.fixture
def host_project(host_release: Release) -> Iterator[str]:
    yield from _provisioned(host_release, host_manifests(_tenant(host_release)))


@pytest.fixture
def member_project(member_release: Release) -> Iterator[str]:
    yield from _provisioned(member_release, member_manifests(_tenant(member_release)))


def _as_operator(
    release: Release, *args: str, stdin: str | None = None, component: str = "operator"
) -> tuple[int, str]:
    done = release.run(*args, "--as", release.sa(component), stdin=stdin, check=False)
    return done.returncode, done.stderr


def test_on_the_host_the_operator_reads_a_projects_secrets_and_no_other(host_release: Release, host_project: str):
    assert host_release.can_i("operator", f"watch secrets -n {host_project}")
    assert host_release.can_i("operator", f"list configmaps -n {host_project}")
    assert not host_release.can_i("operator", f"create secrets -n {host_project}")
    assert not host_release.can_i("operator", "get secrets -n kube-system")
    assert not host_release.can_i("operator", "list secrets -A")

    code, _ = _as_operator(host_release, "get", "secrets", "-n", host_project)
    refused, stderr = _as_operator(host_release, "get", "secrets", "-n", "kube-system")
    assert code == 0
    assert refused != 0 and "Forbidden" in stderr and 'cannot list resource "secrets"' in stderr


def test_on_the_host_the_portal_edits_a_projects_secrets_and_no_other(host_release: Release, host_project: str):
    """configs/host_objects.py's calls (list, get, create, replace, delete), as the web and the worker, in the
    project's namespace only."""
    for component in ("web", "worker"):
        for verb in ("list", "get", "create", "update", "delete"):
            assert host_release.can_i(component, f"{verb} secrets -n {host_project}"), (component, verb)
            assert host_release.can_i(component, f"{verb} configmaps -n {host_project}"), (component, verb)
        assert not host_release.can_i(component, "get secrets -n kube-system")
        assert not host_release.can_i(component, "list secrets -A")

    created, _ = _as_operator(host_release, "create", "-f", "-", stdin=_secret(host_project, "db", copy=False),
                              component="web")  # fmt: skip
    read, _ = _as_operator(host_release, "get", "secret", "db", "-n", host_project, component="worker")
    refused, stderr = _as_operator(host_release, "get", "secrets", "-n", "kube-system", component="web")
    assert (created, read) == (0, 0)
    assert refused != 0 and "Forbidden" in stderr


def _secret(namespace: str, name: str, *, copy: bool) -> str:
    labels = {"pincompute.io/config-copy": "true"} if copy else {}
    meta = {"name": name, "namespace": namespace, "labels": labels}
    return json.dumps({"apiVersion": "v1", "kind": "Secret", "metadata": meta, "stringData": {"k": "v"}})


def test_on_a_member_the_operator_writes_only_its_labelled_copies_in_a_project(
    member_release: Release,
    member_project: str,
):
    create = ("create", "-f", "-")

    def refused_by_policy() -> str:  # the policy is in force once the apiserver has loaded it (asynchronously)
        code, stderr = _as_operator(member_release, *create, stdin=_secret(member_project, "own", copy=False))
        if code == 0:
            member_release.run("delete", "secret", "own", "-n", member_project)
        return stderr if code != 0 else ""

    own_err = wait_for(refused_by_policy, timeout=60, what="the config-copies policy in force")
    copied, _ = _as_operator(member_release, *create, stdin=_secret(member_project, "copied", copy=True))
    elsewhere, elsewhere_err = _as_operator(member_release, *create, stdin=_secret("default", "x", copy=True))
    assert copied == 0
    assert "the federation writes only its copies" in own_err
    assert elsewhere != 0 and "Forbidden" in elsewhere_err

    member_release.run("create", "secret", "generic", "members-own", "-n", member_project, "--from-literal=k=v")
    deleted, deleted_err = _as_operator(member_release, "delete", "secret", "members-own", "-n", member_project)
    assert deleted != 0 and "the federation writes only its copies" in deleted_err
    assert _as_operator(member_release, "delete", "secret", "copied", "-n", member_project)[0] == 0
