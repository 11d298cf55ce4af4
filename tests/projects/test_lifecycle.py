"""A project's description, Pod Security level and archiving: who may, what is checked, what follows."""

from __future__ import annotations

import pytest

from base.errors import Conflict, Forbidden, Invalid, NotFound, Unavailable
from base.models import AuditEvent
from projects.grants import QuotaInput
from projects.lifecycle import archive_project, set_pod_security, update_project
from projects.models import Project, QuotaRequest, TierQuota
from projects.quota import change_quota
from tests.support.factories import HOST, fill, workload_cr

pytestmark = pytest.mark.django_db


@pytest.fixture
def changed(monkeypatch):
    names: list[str] = []
    monkeypatch.setattr("projects.provisioning.project_changed", lambda p: names.append(p.name))
    return names


def test_an_owner_edits_the_description_and_the_namespace_labels_follow(project, owner, changed):
    update_project(project, {"display_name": "Ads", "description": "ranking"}, actor=owner)
    assert changed == []  # nothing on the clusters shows these

    update_project(project, {"cost_center": " CC-2 "}, actor=owner)

    project.refresh_from_db()
    assert (project.display_name, project.cost_center) == ("Ads", "CC-2")
    event = AuditEvent.objects.filter(action="project.update").latest("id")
    assert event.before == {"cost_center": "CC-1"} and event.after == {"cost_center": "CC-2"}
    assert changed == ["ads"]


def test_the_name_and_bad_values_are_refused_by_field_and_nothing_changes(project, owner):
    with pytest.raises(Invalid) as refused:
        update_project(project, {"name": "other", "team": "", "description": "d" * 2001}, actor=owner)

    assert {f.path for f in refused.value.fields} == {"name", "team", "description"}
    assert Project.objects.get(pk=project.pk).team == "ads"


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_cannot_edit_or_archive(project, request, who):
    actor = request.getfixturevalue(who)

    with pytest.raises(Forbidden):
        update_project(project, {"team": "x"}, actor=actor)
    with pytest.raises(Forbidden):
        archive_project(project, actor=actor)

    assert Project.objects.get(pk=project.pk).is_active


def test_another_tenants_project_is_not_found(project, other_project, owner):
    for action in (
        lambda: update_project(other_project, {"team": "x"}, actor=owner),
        lambda: archive_project(other_project, actor=owner),
        lambda: set_pod_security(other_project, "restricted", actor=owner),
    ):
        with pytest.raises(NotFound):
            action()
    assert Project.objects.get(pk=other_project.pk).team == "ml"


def test_only_platform_admins_set_the_pod_security_level(project, owner, admin_user, changed):
    with pytest.raises(Forbidden):
        set_pod_security(project, "privileged", actor=owner)
    with pytest.raises(Invalid):
        set_pod_security(project, "anything-goes", actor=admin_user)

    set_pod_security(project, "restricted", actor=admin_user)

    assert Project.objects.get(pk=project.pk).pod_security == "restricted"
    event = AuditEvent.objects.get(action="project.pod_security.set")
    assert event.before == {"pod_security": "baseline"} and event.after == {"pod_security": "restricted"}
    assert changed == ["ads"]


def test_archiving_is_refused_while_workloads_remain_and_names_them(project, owner, caches):
    fill(caches, HOST, workload_cr("ranker"), workload_cr("notebook", kind="PinPod", admitted=False))

    with pytest.raises(Conflict) as refused:
        archive_project(project, actor=owner)

    assert "PinApp/ranker" in refused.value.message and "PinPod/notebook" in refused.value.message
    assert Project.objects.get(pk=project.pk).is_active


def test_archiving_waits_for_every_cache(project, owner, caches):
    fill(caches, "member-a").synced = False

    with pytest.raises(Unavailable):
        archive_project(project, actor=owner)
    assert Project.objects.get(pk=project.pk).is_active


def test_archiving_releases_grants_rejects_requests_and_freezes_the_project(
    project, owner, admin_user, caches, changed
):
    change_quota(project, "ondemand", QuotaInput(cpu="8"), actor=owner)
    request = change_quota(project, "reserved", QuotaInput(cpu="40"), actor=owner).request

    archived = archive_project(project, actor=owner)

    assert archived.state == "archived" and archived.archived_at is not None
    assert set(TierQuota.objects.filter(project=project).values_list("cpu_milli", flat=True)) == {0}
    assert QuotaRequest.objects.get(pk=request.pk).state == "rejected"
    event = AuditEvent.objects.get(action="project.archive")
    assert event.before["grants"]["ondemand"]["cpu_milli"] == 8000 and event.after["rejected_requests"] == [request.pk]
    assert changed[-1] == "ads"
    with pytest.raises(Conflict, match="archived"):
        archive_project(project, actor=owner)
    with pytest.raises(Conflict, match="archived"):
        update_project(project, {"team": "x"}, actor=owner)
