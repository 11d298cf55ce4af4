"""Time-limited access over the API: ask, decide, grant, revoke, and the end by the clock. Who may not gets 403
(another tenant's project 404) before the body is read; bad input names its field and changes nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from base.models import AuditEvent
from pincompute.rbac import ProjectRole as CoreRole
from pincompute.rbac import Subject
from projects.access import roles_of, visible_project_role
from projects.access_requests.models import AccessGrant, AccessRequest
from projects.access_requests.rules import may_exec_sidecars
from projects.access_requests.signals import access_decided, access_expired, access_expiring, access_requested
from projects.access_requests.tasks import expire_access_grants
from projects.models import Project
from projects.policy import set_project_policy
from projects.provisioning import tenant_of
from tests.support.projects_api import as_, fields, refused

pytestmark = pytest.mark.django_db

ASK = {"access": "developer", "duration_seconds": 7200, "reason": "INC-42: checkout latency"}


def base(project: Project) -> str:
    return f"/api/v1/projects/{project.name}"


@pytest.fixture
def sent() -> Any:
    """Every access signal sent, as (name, kwargs), in order."""
    seen: list[tuple[str, dict[str, Any]]] = []
    receivers = []
    for name, signal in (
        ("requested", access_requested),
        ("decided", access_decided),
        ("expiring", access_expiring),
        ("expired", access_expired),
    ):

        def receiver(sender: Any, _name: str = name, **kwargs: Any) -> None:
            seen.append((_name, kwargs))

        signal.connect(receiver, weak=False)
        receivers.append((signal, receiver))
    yield seen
    for signal, receiver in receivers:
        signal.disconnect(receiver)


def ask(project: Project, user: Any, body: dict[str, Any] = ASK) -> Any:
    return as_(user).post(f"{base(project)}/access-requests/", body, format="json")


def test_a_viewer_asks_the_owner_approves_and_the_role_holds_until_it_ends(
    project, owner, viewer, django_capture_on_commit_callbacks, sent
):
    with django_capture_on_commit_callbacks(execute=True):
        made = ask(project, viewer)
    assert made.status_code == 201, made.json()
    row = made.json()
    assert row["state"] == "pending" and row["user"] == "vic" and row["duration_seconds"] == 7200
    assert [name for name, _ in sent] == ["requested"] and sent[0][1]["request"].pk == row["id"]
    assert [r["id"] for r in as_(owner).get(f"{base(project)}/access-requests/?state=pending").json()] == [row["id"]]

    with django_capture_on_commit_callbacks(execute=True):
        decided = as_(owner).post(f"{base(project)}/access-requests/{row['id']}/approve/", {}, format="json")

    assert decided.status_code == 200 and decided.json()["state"] == "approved"
    grant = AccessGrant.objects.get(pk=decided.json()["grant"])
    assert grant.user == viewer and grant.access == "developer"
    assert timedelta(seconds=7190) < grant.ends_at - timezone.now() <= timedelta(seconds=7200)
    assert visible_project_role(viewer, project.name)[1] == "developer"
    assert Project.objects.for_role(viewer, ("developer",)).filter(pk=project.pk).exists()
    assert sent[-1][0] == "decided" and sent[-1][1]["approved"] and sent[-1][1]["grant"] == grant
    listed = as_(viewer).get(f"{base(project)}/access-grants/").json()
    assert [g["id"] for g in listed] == [grant.pk] and 7190 < listed[0]["seconds_left"] <= 7200
    assert AuditEvent.objects.filter(action="project.access.approve", actor=owner, project_name="ads").exists()

    AccessGrant.objects.filter(pk=grant.pk).update(ends_at=timezone.now() - timedelta(seconds=1))  # time passed
    assert visible_project_role(viewer, project.name)[1] == "viewer"  # by the clock: no task has run
    assert not Project.objects.for_role(viewer, ("developer",)).filter(pk=project.pk).exists()
    assert roles_of(viewer, [project]) == {project.pk: "viewer"}


def test_an_outsider_granted_directly_sees_the_project_until_the_grant_expires(
    project, owner, other_user, django_capture_on_commit_callbacks, sent
):
    body = {"user": other_user.username, "access": "viewer", "duration_seconds": 3600, "reason": "Audit"}
    with django_capture_on_commit_callbacks(execute=True):
        made = as_(owner).post(f"{base(project)}/access-grants/", body, format="json")
    assert made.status_code == 201, made.json()
    assert Project.objects.visible_to(other_user).filter(pk=project.pk).exists()
    assert as_(other_user).get(f"{base(project)}/").status_code == 200
    assert sent[-1][0] == "decided" and sent[-1][1]["request"] is None

    AccessGrant.objects.filter(pk=made.json()["id"]).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert not Project.objects.visible_to(other_user).filter(pk=project.pk).exists()
    refused(as_(other_user).get(f"{base(project)}/"), 404)
    with django_capture_on_commit_callbacks(execute=True):
        assert expire_access_grants() == {"expired": 1, "warned": 0}
    assert expire_access_grants() == {"expired": 0, "warned": 0}  # twice is once

    grant = AccessGrant.objects.get(pk=made.json()["id"])
    assert grant.closed_at is not None and grant.end == "expired"
    assert [name for name, _ in sent][-1] == "expired" and sent[-1][1]["reason"] == "expired"
    assert AuditEvent.objects.filter(action="project.access.expire", project_name="ads", actor=None).count() == 1


def test_the_expiry_task_warns_once_before_the_end(
    project, owner, other_user, django_capture_on_commit_callbacks, sent
):
    body = {"user": other_user.username, "access": "viewer", "duration_seconds": 600, "reason": "Audit"}
    as_(owner).post(f"{base(project)}/access-grants/", body, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        assert expire_access_grants() == {"expired": 0, "warned": 1}  # 600 s is within the 900 s warning
        assert expire_access_grants() == {"expired": 0, "warned": 0}
    assert [name for name, _ in sent].count("expiring") == 1


def test_an_owner_revokes_a_grant_and_it_ends_at_once(project, owner, other_user):
    body = {"user": other_user.username, "access": "developer", "duration_seconds": 3600, "reason": "Incident"}
    grant_id = as_(owner).post(f"{base(project)}/access-grants/", body, format="json").json()["id"]

    assert as_(owner).delete(f"{base(project)}/access-grants/{grant_id}/").status_code == 204

    assert not Project.objects.visible_to(other_user).filter(pk=project.pk).exists()
    assert AccessGrant.objects.get(pk=grant_id).end == "revoked"
    assert AuditEvent.objects.filter(action="project.access.revoke", actor=owner).exists()
    refused(as_(owner).delete(f"{base(project)}/access-grants/{grant_id}/"), 409)  # ended already


def test_roles_that_may_not_decide_get_403_and_another_tenant_404_before_the_body(
    project, owner, developer, viewer, other_user, other_project
):
    row = ask(project, viewer).json()
    approve = f"{base(project)}/access-requests/{row['id']}/approve/"

    refused(as_(developer).post(approve, {"reason": 5}, format="json"), 403)  # a bad body: still the role first
    refused(as_(viewer).post(approve, {}, format="json"), 403)  # not their own request either
    refused(as_(other_user).post(approve, {}, format="json"), 404)
    refused(as_(other_user).get(f"{base(project)}/access-requests/"), 404)
    refused(as_(other_user).post(f"{base(project)}/access-requests/", ASK, format="json"), 404)
    refused(as_(developer).post(f"{base(project)}/access-grants/", {"user": 1}, format="json"), 403)
    refused(as_(owner).post(f"/api/v1/projects/{other_project.name}/access-grants/", {}, format="json"), 404)
    refused(as_(viewer).delete(f"{base(project)}/access-grants/999/"), 404)

    assert AccessRequest.objects.get(pk=row["id"]).state == "pending"
    assert not AccessGrant.objects.exists()


def test_a_user_never_gets_another_projects_requests(project, owner, viewer, other_project, other_user, developer):
    other_project_request = ask(other_project, other_user, {**ASK, "access": "sidecar-exec"})
    assert other_project_request.status_code == 201, other_project_request.json()
    mine = ask(project, viewer).json()

    assert [r["id"] for r in as_(owner).get(f"{base(project)}/access-requests/").json()] == [mine["id"]]
    assert as_(developer).get(f"{base(project)}/access-requests/").json() == []  # not theirs
    assert [r["project"] for r in as_(other_user).get(f"{base(other_project)}/access-requests/").json()] == ["ml"]
    refused(as_(owner).post(f"{base(project)}/access-requests/{other_project_request.json()['id']}/approve/"), 404)


def test_bad_input_names_the_field_and_changes_nothing(project, viewer, owner, settings):
    too_long = settings.ACCESS_GRANT_MAX_SECONDS + 1
    assert "duration_seconds" in fields(ask(project, viewer, {**ASK, "duration_seconds": too_long}))
    assert (
        "most a grant may last"
        in fields(ask(project, viewer, {**ASK, "duration_seconds": too_long}))["duration_seconds"]
    )
    assert set(fields(ask(project, viewer, {**ASK, "access": "root"}))) == {"access"}
    assert set(fields(ask(project, viewer, {**ASK, "reason": " "}))) == {"reason"}
    assert set(fields(ask(project, viewer, {**ASK, "colour": "red"}))) == {"colour"}
    grant = {"user": "nobody", "access": "admin", "duration_seconds": 10**9, "reason": "x"}
    assert set(fields(as_(owner).post(f"{base(project)}/access-grants/", grant, format="json"))) == {
        "user",
        "access",
        "duration_seconds",
    }
    assert not AccessRequest.objects.exists() and not AccessGrant.objects.exists()


def test_held_access_and_a_second_pending_ask_are_conflicts(project, owner, developer):
    assert "already a developer" in refused(ask(project, developer), 409)["message"]
    assert ask(project, developer, {**ASK, "access": "owner"}).status_code == 201
    assert "waits for a decision" in refused(ask(project, developer, {**ASK, "access": "owner"}), 409)["message"]


def test_sidecar_exec_is_decided_by_platform_admins_only(project, owner, developer, viewer, admin_user):
    refused(ask(project, viewer, {**ASK, "access": "sidecar-exec"}), 403)  # no shell at all: ask for developer
    row = ask(project, developer, {**ASK, "access": "sidecar-exec"}).json()
    approve = f"{base(project)}/access-requests/{row['id']}/approve/"

    refused(as_(owner).post(approve, {}, format="json"), 403)
    assert not may_exec_sidecars(developer, project.pk)
    assert as_(admin_user).post(approve, {"reason": "ok"}, format="json").status_code == 200
    assert may_exec_sidecars(developer, project.pk) and not may_exec_sidecars(viewer, project.pk)


def test_sidecar_exec_is_refused_when_the_projects_policy_forbids_it_naming_the_rule(
    project, developer, admin_user, other_user
):
    """The grant would open nothing (the shell refuses by the policy): asked, granted or approved after the policy
    changed, it is a 400 naming ``access`` and the rule, and nothing is written."""
    pending = ask(project, developer, {**ASK, "access": "sidecar-exec"}).json()
    set_project_policy(project, {"sidecarExec": False}, actor=admin_user)
    rows = AccessRequest.objects.count()

    refused_ask = fields(ask(project, developer, {**ASK, "access": "sidecar-exec"}))
    granted = as_(admin_user).post(
        f"{base(project)}/access-grants/",
        {"user": other_user.username, "access": "sidecar-exec", "duration_seconds": 3600, "reason": "debug"},
        format="json",
    )
    approved = as_(admin_user).post(f"{base(project)}/access-requests/{pending['id']}/approve/", {}, format="json")

    for answer in (refused_ask, fields(granted), fields(approved)):
        assert "policy: sidecar exec" in answer["access"], answer
    assert AccessRequest.objects.count() == rows and not AccessGrant.objects.exists()
    assert AccessRequest.objects.get(pk=pending["id"]).state == "pending"


def test_a_denied_request_grants_nothing(project, owner, viewer, django_capture_on_commit_callbacks, sent):
    row = ask(project, viewer).json()
    with django_capture_on_commit_callbacks(execute=True):
        denied = as_(owner).post(f"{base(project)}/access-requests/{row['id']}/deny/", {"reason": "no"}, format="json")
    assert denied.json()["state"] == "denied" and denied.json()["decision_reason"] == "no"
    assert sent[-1][0] == "decided" and sent[-1][1]["approved"] is False and sent[-1][1]["grant"] is None
    refused(as_(owner).post(f"{base(project)}/access-requests/{row['id']}/approve/"), 409)
    assert visible_project_role(viewer, project.name)[1] == "viewer"


def test_the_clusters_rolebindings_name_a_time_limited_role_only_while_it_lasts(project, owner, other_user):
    body = {"user": other_user.username, "access": "developer", "duration_seconds": 3600, "reason": "kubectl"}
    generation = project.generation
    grant_id = as_(owner).post(f"{base(project)}/access-grants/", body, format="json").json()["id"]
    project.refresh_from_db()
    assert project.generation > generation  # the clusters follow the grant

    assert Subject("User", "dev2") in tenant_of(project).subjects[CoreRole.DEVELOPER]
    AccessGrant.objects.filter(pk=grant_id).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert Subject("User", "dev2") not in tenant_of(project).subjects.get(CoreRole.DEVELOPER, ())
    expire_access_grants()
    assert Project.objects.get(pk=project.pk).generation > project.generation  # provisioned again on expiry
