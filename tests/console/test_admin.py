"""The Django admin is no side door: every admin is read-only or writes through the services.

Each test posts what the admin's own change form would post, then checks that the change was either
refused (read-only admins) or made by the service (validated, with its audit row).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import Group
from django.test import RequestFactory
from django.utils import timezone

from accounts import services as token_services
from accounts.models import ApiToken
from base.models import AuditEvent
from clusters.models import Cluster, ClusterPool
from projects.members import MemberInput, set_member
from projects.models import Membership, Project, QuotaRequest, TierQuota
from tests.support.factories import make_cluster, make_pool, make_project, make_quota

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client(client, admin_user):
    """An explicit superuser (``createsuperuser``): the one account the admin lets write, through the services."""
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client.force_login(admin_user)
    return client


def form_data(page: Any) -> dict[str, Any]:
    """What the admin change page would post unchanged: the main form, every inline, management forms."""
    data: dict[str, Any] = {}
    forms = [page.context["adminform"].form]
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        forms.append(formset.management_form)
        forms.extend(formset.forms)
    for form in forms:
        for field in form:
            value = field.value()
            if value is None or value is False:
                continue
            data[field.html_name] = [str(v) for v in value] if isinstance(value, list | tuple) else str(value)
    return data


def test_every_admin_is_read_only_or_writes_through_services(admin_user):
    admin_user.is_staff = admin_user.is_superuser = True
    request = RequestFactory().get("/admin/")
    request.user = admin_user

    for model, model_admin in admin.site._registry.items():
        admins = [model_admin, *model_admin.get_inline_instances(request)]
        for each in admins:
            writes = [
                name
                for name, allowed in (
                    (
                        "add",
                        each.has_add_permission(request)
                        if each is model_admin
                        else each.has_add_permission(request, None),
                    ),
                    ("change", each.has_change_permission(request)),
                    ("delete", each.has_delete_permission(request)),
                )
                if allowed
            ]
            if writes:
                assert getattr(model_admin, "writes_through_services", False), (
                    f"{type(each).__name__} ({model._meta.label}) may {', '.join(writes)} around the services"
                )


def test_admin_cannot_shrink_a_pool_below_granted_quota(superuser_client):
    cluster = make_cluster()
    make_pool(cluster, "reserved", 100, 400)
    make_quota("reserved", 70)
    url = f"/admin/clusters/cluster/{cluster.pk}/change/"
    page = superuser_client.get(url)
    data = form_data(page)
    data.update(
        {
            "pools-TOTAL_FORMS": "1",
            "pools-INITIAL_FORMS": "1",
            "pools-0-id": str(cluster.pools.get().pk),
            "pools-0-cluster": str(cluster.pk),
            "pools-0-kind": "reserved",
            "pools-0-cpu_milli": "10000",
            "pools-0-memory_bytes": str(400 * 2**30),
            "pools-0-gpu": "0",
        }
    )

    superuser_client.post(url, data)

    assert ClusterPool.objects.get(cluster=cluster, kind="reserved").cpu_milli == 100_000
    assert not AuditEvent.objects.filter(action__startswith="cluster.").exists()


def test_cluster_admin_is_a_view_with_a_link_to_the_portal_page(superuser_client):
    cluster = make_cluster()
    url = f"/admin/clusters/cluster/{cluster.pk}/change/"

    page = superuser_client.get(url)
    post = superuser_client.post(url, {"name": cluster.name, "region": "local-9"})

    assert page.status_code == 200 and f'href="/clusters/{cluster.name}/"'.encode() in page.content
    assert post.status_code == 403 and Cluster.objects.get(pk=cluster.pk).region == "local-1"


def inline_row(data: dict[str, Any], prefix: str, pk: int) -> str:
    """The form prefix of the inline row showing object ``pk``, e.g. ``memberships-1``."""
    count = int(data[f"{prefix}-TOTAL_FORMS"])
    return next(f"{prefix}-{i}" for i in range(count) if data.get(f"{prefix}-{i}-id") == str(pk))


def test_admin_membership_change_goes_through_the_service(superuser_client, admin_user, user):
    project = make_project("ads", admin_user)
    row = set_member(project, MemberInput("user", user.username, "viewer"), actor=admin_user)
    url = f"/admin/projects/project/{project.pk}/change/"
    data = form_data(superuser_client.get(url))
    data[f"{inline_row(data, 'memberships', row.pk)}-role"] = "owner"

    response = superuser_client.post(url, data)

    assert response.status_code == 302, response.content[:3000]
    assert Membership.objects.get(project=project, user=user).role == "owner"
    event = AuditEvent.objects.get(action="project.member.set", target_name="user:dev1", after={"role": "owner"})
    assert event.actor == admin_user and event.before == {"role": "viewer"}


def test_admin_member_removal_is_audited(superuser_client, admin_user, user):
    project = make_project("ads", admin_user)
    row = set_member(project, MemberInput("user", user.username, "developer"), actor=admin_user)
    url = f"/admin/projects/project/{project.pk}/change/"
    data = form_data(superuser_client.get(url))
    data[f"{inline_row(data, 'memberships', row.pk)}-DELETE"] = "on"

    response = superuser_client.post(url, data)

    assert response.status_code == 302, response.content[:3000]
    assert not Membership.objects.filter(project=project, user=user).exists()
    assert AuditEvent.objects.get(action="project.member.remove").target_name == f"user:{user.username}"


def test_admin_quota_change_goes_through_the_service(superuser_client, admin_user):
    make_pool(make_cluster(), "reserved", 16)
    quota = make_quota("reserved", 8)
    url = f"/admin/projects/project/{quota.project.pk}/change/"
    data = form_data(superuser_client.get(url))
    data["quotas-0-cpu_milli"] = "12000"

    response = superuser_client.post(url, data)

    assert response.status_code == 302, response.content[:3000]
    assert TierQuota.objects.get(pk=quota.pk).cpu_milli == 12_000
    event = AuditEvent.objects.get(action="project.quota.set")
    assert event.before["cpu_milli"] == 8000 and event.after["cpu_milli"] == 12000


def test_admin_quota_change_beyond_the_pools_is_queued_not_written(superuser_client, admin_user):
    make_pool(make_cluster(), "reserved", 16)
    quota = make_quota("reserved", 8)
    url = f"/admin/projects/project/{quota.project.pk}/change/"
    data = form_data(superuser_client.get(url))
    data["quotas-0-cpu_milli"] = "30000"

    response = superuser_client.post(url, data)

    assert response.status_code == 302, response.content[:3000]
    assert TierQuota.objects.get(pk=quota.pk).cpu_milli == 8000
    assert QuotaRequest.objects.get().requested["cpu_milli"] == 30000


def test_admin_project_creation_goes_through_the_service(superuser_client, admin_user, user):
    page = superuser_client.get("/admin/projects/project/add/")
    data = form_data(page)
    data.update(
        {
            "name": "search",
            "team": "search",
            "cost_center": "CC-9",
            "memberships-TOTAL_FORMS": "1",
            "memberships-0-user": str(user.pk),
            "memberships-0-role": "owner",
        }
    )

    response = superuser_client.post("/admin/projects/project/add/", data)

    assert response.status_code == 302, response.content[:3000]
    assert Membership.objects.get(project__name="search").user == user
    assert AuditEvent.objects.get(action="project.create").project_name == "search"
    assert AuditEvent.objects.get(action="project.member.set").after == {"role": "owner"}


def test_admin_cannot_make_a_user_a_platform_admin(superuser_client, user):
    group = Group.objects.get_or_create(name=settings.PLATFORM_ADMIN_GROUP)[0]
    url = f"/admin/auth/user/{user.pk}/change/"

    superuser_client.post(
        url,
        {
            "username": user.username,
            "groups": [str(group.pk)],
            "is_active": "on",
            "is_staff": "on",
            "is_superuser": "on",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
        },
    )

    user.refresh_from_db()
    assert not user.groups.exists() and not user.is_superuser
    assert superuser_client.post("/admin/auth/group/add/", {"name": "sneaky"}).status_code == 403
    assert not Group.objects.filter(name="sneaky").exists()


def test_admin_cannot_unrevoke_or_forge_a_token(superuser_client, user):
    token, _ = token_services.create_api_token(user=user, name="cli", days=None)
    token_services.revoke_api_token(user=user, token_id=token.pk)
    url = f"/admin/accounts/apitoken/{token.pk}/change/"

    superuser_client.post(
        url, {"user": str(user.pk), "name": "cli", "created_at_0": "2026-01-01", "created_at_1": "00:00:00"}
    )

    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None
    assert (
        superuser_client.post(
            "/admin/accounts/apitoken/add/", {"user": str(user.pk), "name": "x", "key_id": "k", "digest": "d"}
        ).status_code
        == 403
    )


def test_admin_revoke_action_goes_through_the_service(superuser_client, admin_user, user):
    token, _ = token_services.create_api_token(user=user, name="cli", days=None)

    response = superuser_client.post(
        "/admin/accounts/apitoken/", {"action": "revoke_tokens", "_selected_action": [str(token.pk)]}
    )

    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None and token.revoked_at <= timezone.now()
    event = AuditEvent.objects.get(action="token.revoke")
    assert event.actor == admin_user and user.username in event.summary


def test_admin_project_edit_goes_through_the_service_and_keeps_the_name(superuser_client, admin_user):
    project = make_project("ads", admin_user)
    url = f"/admin/projects/project/{project.pk}/change/"
    data = form_data(superuser_client.get(url))
    data.update({"cost_center": "CC-2", "name": "renamed"})

    response = superuser_client.post(url, data)

    assert response.status_code == 302, response.content[:3000]
    project.refresh_from_db()
    assert project.name == "ads" and project.cost_center == "CC-2"
    event = AuditEvent.objects.get(action="project.update")
    assert event.before == {"cost_center": "CC-1"} and event.after == {"cost_center": "CC-2"}


def test_every_admin_page_renders(superuser_client, admin_user, user):
    cluster = make_cluster()
    make_pool(cluster, "reserved", 10)
    quota = make_quota("reserved", 4)
    token, _ = token_services.create_api_token(user=user, name="cli", days=None)
    objects = {
        Cluster: cluster,
        Project: quota.project,
        ApiToken: token,
        AuditEvent: AuditEvent.objects.first(),
        QuotaRequest: QuotaRequest.objects.create(project=quota.project, tier="reserved", previous={}, requested={}),
        Group: Group.objects.first(),
        type(user): user,
    }

    for model in admin.site._registry:
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        assert superuser_client.get(base).status_code == 200, base
        assert superuser_client.get(f"{base}{objects[model].pk}/change/").status_code == 200, base
