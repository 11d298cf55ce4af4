"""A project's policy in the portal: platform admins set it (and the defaults new projects start with), every member
reads it, a member's write is a 403 and another tenant's a 404, each change audited with before and after and
provisioned (tests/workloads/api/test_policy_api.py: submission refuses by it)."""

from __future__ import annotations

import pytest

from base.models import AuditEvent
from pincompute.labels import POLICY_ANNOTATION
from pincompute.policy import parse_annotation, parse_policy
from pincompute.tenancy import host_manifests
from projects.models import Project
from projects.policy import default_policy, set_policy_defaults, set_project_policy
from projects.provisioning import tenant_of
from tests.support.api_host import client_for
from tests.support.factories import make_project
from tests.support.workloads_api import error, quiet

pytestmark = pytest.mark.django_db
POLICY = "/api/v1/projects/ads/policy/"
DEFAULTS = "/api/v1/policy-defaults/"
STRICT = {
    "allowedKinds": ["PinApp", "PinPod"],
    "imageRegistries": ["registry.local/search"],
    "maxPerContainer": {"cpu": "2", "memory": "4Gi"},
    "sidecarExec": False,
}


def pin_pod(image: str = "registry.local/search/app:1", **resources: dict) -> dict:
    container = {"name": "c", "image": image, **({"resources": resources} if resources else {})}
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinPod",
        "metadata": {"name": "p1"},
        "spec": {"containers": [container]},
    }


def test_an_admin_sets_the_policy_audited_with_before_and_after_and_provisioned(project, admin_user):
    generation = Project.objects.get(name="ads").generation

    answer = client_for(admin_user).put(POLICY, STRICT, format="json")

    assert answer.status_code == 200, answer.json()
    assert answer.json()["allowedKinds"] == ["PinApp", "PinPod"]
    assert answer.json()["maxPerContainer"] == {"cpu": "2", "memory": "4Gi"}
    row = AuditEvent.objects.get(action="project.policy.set")
    assert row.project_name == "ads" and row.actor_name == admin_user.username
    assert row.before["allowedKinds"] is None and row.after["allowedKinds"] == ["PinApp", "PinPod"]
    project.refresh_from_db()
    assert project.generation == generation + 1
    assert client_for(admin_user).put(POLICY, STRICT, format="json").status_code == 200  # the same again
    assert AuditEvent.objects.filter(action="project.policy.set").count() == 1
    namespace = host_manifests(tenant_of(project))[0]
    assert parse_annotation(namespace["metadata"]["annotations"][POLICY_ANNOTATION]).kinds == {"PinApp", "PinPod"}


def test_every_member_reads_it_and_another_tenant_gets_a_404(project, viewer, other_user):
    assert client_for(viewer).get(POLICY).json()["sidecarExec"] is True
    assert client_for(other_user).get(POLICY).status_code == 404


@pytest.mark.parametrize("who", ["viewer", "developer", "owner"])
def test_a_member_may_not_change_it_even_with_a_bad_body(project, who, request):
    user = request.getfixturevalue(who)
    before = Project.objects.get(name="ads").policy

    answer = quiet(user).put(POLICY, {"allowedKinds": "nonsense"}, format="json")

    assert error(answer, 403)
    assert Project.objects.get(name="ads").policy == before
    assert not AuditEvent.objects.filter(action="project.policy.set").exists()


def test_another_tenant_changing_it_gets_a_404(project, other_user):
    assert error(quiet(other_user).put(POLICY, STRICT, format="json"), 404)


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"allowedKinds": ["Deployment"]}, "allowedKinds"),
        ({"imageRegistries": ["https://quay.io"]}, "imageRegistries[0]"),
        ({"maxPerContainer": {"cpu": "lots"}}, "maxPerContainer.cpu"),
        ({"allowedTier": []}, "allowedTier"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field_and_changes_nothing(project, admin_user, body, path):
    answer = quiet(admin_user).put(POLICY, body, format="json")

    assert any(f["path"].startswith(path) for f in error(answer, 400)["fields"])
    assert Project.objects.get(name="ads").policy == project.policy
    assert not AuditEvent.objects.filter(action="project.policy.set").exists()


def test_the_defaults_are_for_admins_and_new_projects_start_with_them(region, admin_user, user, owner):
    assert error(quiet(owner).put(DEFAULTS, {"sidecarExec": False}, format="json"), 403)
    assert error(quiet(owner).get(DEFAULTS), 403)

    answer = client_for(admin_user).put(
        DEFAULTS, {"allowedTiers": ["Preemptible"], "notifyOnShell": True}, format="json"
    )

    assert answer.status_code == 200, answer.json()
    row = AuditEvent.objects.get(action="policy.defaults.set")
    assert row.before["allowedTiers"] is None and row.after["allowedTiers"] == ["Preemptible"]
    created = make_project("fresh", user)
    assert parse_policy(created.policy) == default_policy()
    assert parse_policy(created.policy).notify_on_shell is True


def test_the_setting_gives_the_defaults_until_an_admin_edits_them(settings, admin_user):
    settings.PROJECT_POLICY_DEFAULTS = {"allowedKinds": ["PinApp"]}

    assert default_policy().kinds == {"PinApp"}
    set_policy_defaults({"allowedKinds": None}, actor=admin_user)
    assert default_policy().kinds is None


def test_the_page_shows_members_the_policy_read_only(client, project, viewer, admin_user):
    set_project_policy(project, STRICT, actor=admin_user)
    client.force_login(viewer)

    page = client.get("/projects/ads/").content.decode()

    assert "data-policy-registries" in page and "registry.local/search" in page
    assert 'action="/projects/ads/policy/"' not in page


def test_an_admin_edits_it_on_the_page_with_errors_beside_the_fields(client, project, admin_user):
    client.force_login(admin_user)
    form = {"allowedKinds": ["PinApp"], "allowedTiers": ["OnDemand"], "imageRegistries": "quay.io\nhttps://bad"}

    refused = client.post("/projects/ads/policy/", form, HTTP_HX_REQUEST="true")
    form["imageRegistries"] = "quay.io"
    saved = client.post("/projects/ads/policy/", {**form, "max_cpu": "4"}, HTTP_HX_REQUEST="true")

    assert refused.status_code == 400
    assert "is not a registry host" in refused.content.decode()
    assert saved.status_code == 200
    policy = parse_policy(Project.objects.get(name="ads").policy)
    assert (
        policy.kinds == {"PinApp"} and policy.registries == ("quay.io",) and policy.max_per_container == {"cpu": 4000}
    )


def test_a_member_posting_the_page_form_gets_a_403(client, project, owner):
    client.force_login(owner)

    assert client.post("/projects/ads/policy/", {"allowedKinds": ["PinApp"]}).status_code == 403
    assert client.get("/projects/policy-defaults/").status_code == 403


def test_an_admin_edits_the_defaults_on_their_page(client, admin_user):
    client.force_login(admin_user)
    form = {"allowedKinds": ["PinApp"], "allowedTiers": ["OnDemand"], "max_memory": "8 gigs"}

    shown = client.get("/projects/policy-defaults/")
    refused = client.post("/projects/policy-defaults/", form, HTTP_HX_REQUEST="true")
    saved = client.post("/projects/policy-defaults/", {**form, "max_memory": "8Gi"}, HTTP_HX_REQUEST="true")

    assert shown.status_code == 200 and "Allowed kinds" in shown.content.decode()
    assert refused.status_code == 400 and "is not a quantity (examples: 500m" in refused.content.decode()
    assert saved.status_code == 200 and "Saved." in saved.content.decode()
    assert default_policy().max_per_container == {"memory": 8 << 30}
    assert default_policy().kinds == {"PinApp"}
