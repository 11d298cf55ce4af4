"""The project page and its htmx sections: what each role sees, changes with their errors beside the fields,
refusals (viewer and developer 403, another tenant 404), provisioning per cluster with retry, archiving."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.contrib.auth.models import Group

from base.models import AuditEvent
from clusters.models import Cluster
from projects.grants import QuotaInput
from projects.models import ClusterProvisioning, Membership, Project, QuotaRequest, TierQuota
from projects.quota import change_quota
from tests.support.factories import HOST, fill, workload_cr
from tests.support.projects_pages import HX, text

pytestmark = pytest.mark.django_db
GI = 2**30


def feedback(response) -> list[str]:
    found = re.findall(r'class="invalid-feedback[^"]*"[^>]*>(.*?)</div>', response.content.decode(), re.S)
    return [html.unescape(re.sub(r"\s+", " ", m)).strip() for m in found]


@pytest.fixture
def as_(client):
    def sign_in(user):
        client.force_login(user)
        return client

    return sign_in


@pytest.fixture
def changed(monkeypatch):
    """Provisioning is not run (no apiserver here): the projects whose clusters were told to follow."""
    names: list[str] = []
    monkeypatch.setattr("projects.provisioning.project_changed", lambda p: names.append(p.name))
    return names


# --- what each role sees ------------------------------------------------------------------------------


def test_an_owner_sees_every_control(project, owner, as_):
    page = text(as_(owner).get("/projects/ads/"))

    assert 'hx-get="/projects/ads/basics/?edit=1"' in page
    assert 'name="op" value="remove"' in page and 'name="add-name"' in page
    assert page.count('class="quota-change"') == 3
    assert 'action="/projects/ads/archive/"' in page
    assert 'action="/projects/ads/pod-security/"' not in page  # platform admins only
    assert "/quota/force/" not in page


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_see_everything_read_only(project, request, who, as_):
    page = text(as_(request.getfixturevalue(who)).get("/projects/ads/"))

    assert "Members" in page and "Quota per tier" in page and "Provisioning on every cluster" in page
    assert "devi" in page and "vic" in page  # the members
    assert "/basics/?edit=1" not in page and 'name="op"' not in page
    assert 'class="quota-change"' not in page and "/archive/" not in page


def test_a_platform_admin_also_sets_pod_security_and_forces_decreases(project, admin_user, as_):
    page = text(as_(admin_user).get("/projects/ads/"))

    assert 'action="/projects/ads/pod-security/"' in page and "/projects/ads/quota/force/" in page


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/projects/ml/"),
        ("get", "/projects/ml/members/"),
        ("get", "/projects/ml/provisioning/"),
        ("post", "/projects/ml/basics/"),
        ("post", "/projects/ml/members/"),
        ("post", "/projects/ml/quota/"),
        ("post", "/projects/ml/archive/"),
        ("post", "/projects/ml/provisioning/member-a/retry/"),
    ],
)
def test_another_tenants_project_is_not_found(project, other_project, owner, as_, method, url):
    client = as_(owner)

    response = getattr(client, method)(url, {"tier": "reserved", "op": "add"}, **HX)

    assert response.status_code == 404
    assert Project.objects.get(name="ml").generation == other_project.generation


# --- basics ---------------------------------------------------------------------------------------------


def test_an_owner_edits_the_basics_inline(project, owner, as_, changed):
    client = as_(owner)

    form = client.get("/projects/ads/basics/?edit=1", **HX)
    saved = client.post(
        "/projects/ads/basics/",
        {"display_name": "Ads", "team": "ads-ml", "cost_center": "CC-7", "description": ""},
        **HX,
    )

    assert 'name="team"' in text(form) and "<html" not in text(form)
    assert saved.status_code == 200 and "ads-ml" in text(saved) and 'name="team"' not in text(saved)
    assert "provisioning-changed" in saved["HX-Trigger"]
    assert Project.objects.get(name="ads").team == "ads-ml" and changed == ["ads"]


def test_a_bad_basics_edit_is_refused_beside_the_field_and_nothing_changes(project, owner, as_):
    response = as_(owner).post(
        "/projects/ads/basics/", {"display_name": "x" * 121, "team": "", "cost_center": "CC-1"}, **HX
    )

    assert response.status_code == 400
    assert set(feedback(response)) == {"Use at most 120 characters; this has 121.", "Give the team."}
    assert Project.objects.get(name="ads").team == "ads"


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_cannot_edit_the_basics(project, request, who, as_):
    response = as_(request.getfixturevalue(who)).post("/projects/ads/basics/", {"team": "x", "cost_center": "y"}, **HX)

    assert response.status_code == 403 and Project.objects.get(name="ads").team == "ads"


def test_only_platform_admins_set_the_pod_security_level(project, owner, admin_user, as_, changed):
    refused = as_(owner).post("/projects/ads/pod-security/", {"pod_security": "restricted"}, **HX)
    saved = as_(admin_user).post("/projects/ads/pod-security/", {"pod_security": "restricted"}, **HX)

    assert refused.status_code == 403
    assert saved.status_code == 200 and Project.objects.get(name="ads").pod_security == "restricted"
    assert changed == ["ads"]


# --- members --------------------------------------------------------------------------------------------


def add(client, kind: str, name: str, role: str = "developer"):
    return client.post(
        "/projects/ads/members/", {"op": "add", "add-kind": kind, "add-name": name, "add-role": role}, **HX
    )


def test_an_owner_adds_a_group_with_a_role(project, owner, as_, changed):
    Group.objects.create(name="ads-oncall")

    response = add(as_(owner), "group", "ads-oncall", "viewer")

    assert response.status_code == 200 and "group ads-oncall is a viewer" in text(response).lower()
    assert Membership.objects.get(project=project, group__name="ads-oncall").role == "viewer"
    assert changed == ["ads"]


def test_an_unknown_user_is_refused_beside_the_name_and_nothing_changes(project, owner, as_):
    before = Membership.objects.count()

    response = add(as_(owner), "user", "nobody")

    assert response.status_code == 400
    assert feedback(response) == ["There is no user named 'nobody'."]
    assert Membership.objects.count() == before


def test_a_role_change_and_a_removal(project, owner, developer, as_):
    client = as_(owner)

    promoted = client.post(
        "/projects/ads/members/",
        {"op": "role", "kind": "user", "name": developer.username, f"user-{developer.username}-role": "owner"},
        **HX,
    )
    removed = client.post("/projects/ads/members/", {"op": "remove", "kind": "user", "name": "vic"}, **HX)

    assert promoted.status_code == 200 and project.role_of(developer) == "owner"
    assert removed.status_code == 200 and not Membership.objects.filter(user__username="vic").exists()
    assert AuditEvent.objects.filter(action="project.member.remove", target_name="user:vic").exists()


def test_the_last_owner_is_refused_inline_beside_their_row(project, owner, as_):
    client = as_(owner)

    demoted = client.post(
        "/projects/ads/members/",
        {"op": "role", "kind": "user", "name": owner.username, f"user-{owner.username}-role": "viewer"},
        **HX,
    )
    removed = client.post("/projects/ads/members/", {"op": "remove", "kind": "user", "name": owner.username}, **HX)

    for response in (demoted, removed):
        page = text(response)
        assert response.status_code == 409
        assert f"user:{owner.username} is the last owner of ads; add another first." in feedback(response)
        row = page.index(f'data-member="user:{owner.username}"')
        assert row < page.index("is the last owner") < page.index('data-member="user:devi"')
    assert project.role_of(owner) == "owner"


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_cannot_manage_members(project, request, who, as_):
    response = add(as_(request.getfixturevalue(who)), "user", "dev2")

    assert response.status_code == 403


def test_an_owner_who_removes_themselves_lands_on_the_project_list(project, owner, developer, as_):
    client = as_(owner)
    client.post(
        "/projects/ads/members/",
        {"op": "role", "kind": "user", "name": developer.username, f"user-{developer.username}-role": "owner"},
        **HX,
    )

    response = client.post("/projects/ads/members/", {"op": "remove", "kind": "user", "name": owner.username}, **HX)

    assert response.status_code == 200 and response["HX-Redirect"] == "/projects/"


# --- quota ----------------------------------------------------------------------------------------------


def change(client, tier: str = "reserved", **amounts: str):
    data = {"tier": tier, **{f"{tier}-{k}": v for k, v in {"cpu": "0", "memory": "0", "gpu": "0", "pods": "0"}.items()}}
    data.update({f"{tier}-{k}": v for k, v in amounts.items()})
    return client.post("/projects/ads/quota/", data, **HX)


def test_the_quota_section_shows_grant_usage_running_and_headroom_per_cluster_with_a_chart(project, owner, caches, as_):
    change_quota(project, "ondemand", QuotaInput(cpu="8", memory="16Gi", pods="10"), actor=owner)
    fill(caches, HOST, workload_cr("web", replicas=2, cpu="1", memory="1Gi"))

    page = text(as_(owner).get("/projects/ads/quota/", **HX))

    assert "<html" not in page and 'id="quota"' in page
    chart = json.loads(re.search(r'id="quota-cpu-chart" data-chart="(.*?)" role="img"', page).group(1))
    assert chart["data"]["labels"] == ["Reserved", "OnDemand", "Preemptible"]
    by_label = {d["label"]: d["data"] for d in chart["data"]["datasets"]}
    assert by_label["Granted"] == [0, 8, 0]
    assert by_label["Admitted usage"][1] > 0 and by_label["Admitted usage"][0] == 0
    assert "Pool headroom per cluster" in page and "member-a" in page and "member-b" in page
    assert "PinApp/" in page and "web" in page  # the workloads counted


def test_the_quota_section_says_which_workloads_wait_for_admission_and_why(project, owner, caches, as_):
    fill(caches, HOST, workload_cr("web"), workload_cr("batch", admitted=False, clusters=()))

    page = text(as_(owner).get("/projects/ads/quota/", **HX))

    assert 'data-workload="PinApp/web" data-admitted="true"' in page
    assert 'data-workload="PinApp/batch" data-admitted="false"' in page
    assert "waiting" in page and "OnDemand cpu: over the grant" in page


def test_an_increase_within_the_limit_says_it_was_applied_at_once(project, owner, as_, changed):
    response = change(as_(owner), cpu="8", memory="32Gi", pods="50")

    assert response.status_code == 200 and 'data-quota-result="applied"' in text(response)
    assert "Applied at once" in text(response)
    assert TierQuota.objects.get(project=project, tier="reserved").cpu_milli == 8000
    assert "provisioning-changed" in response["HX-Trigger"] and changed == ["ads"]


def test_an_increase_beyond_the_limit_says_it_became_a_request(project, owner, as_, changed):
    response = change(as_(owner), cpu="12")

    request = QuotaRequest.objects.get(project=project)
    assert response.status_code == 200 and 'data-quota-result="pending"' in text(response)
    assert f"Request #{request.pk} for Reserved waits for a platform admin" in text(response)
    assert f'data-request="{request.pk}" data-state="pending"' in text(response)
    assert TierQuota.objects.get(project=project, tier="reserved").cpu_milli == 0 and changed == []


def test_the_requests_show_who_decided_what_and_why(project, owner, admin_user, as_):
    from projects.quota import reject_request

    asked = change_quota(project, "reserved", QuotaInput(cpu="12"), actor=owner, reason="launch").request
    reject_request(asked.pk, actor=admin_user, reason="no room this quarter")

    page = text(as_(owner).get("/projects/ads/"))

    assert f'data-request="{asked.pk}" data-state="rejected"' in page
    assert "“launch”" in page and "“no room this quarter”" in page and admin_user.username in page


@pytest.mark.parametrize(
    ("amounts", "field", "says"),
    [({"cpu": "lots"}, "cpu", "is not a quantity"), ({"memory": "-1"}, "memory", "is negative")],
)
def test_a_malformed_change_is_refused_beside_the_field(project, owner, as_, amounts, field, says):
    response = change(as_(owner), **amounts)

    assert response.status_code == 400
    assert f'id="id_reserved-{field}_error"' in response.content.decode()
    assert says in " ".join(feedback(response)) and not QuotaRequest.objects.exists()


def test_a_decrease_below_usage_is_refused_with_the_numbers(project, owner, admin_user, caches, as_):
    change_quota(project, "ondemand", QuotaInput(cpu="8", memory="16Gi", pods="10"), actor=admin_user)
    fill(caches, HOST, workload_cr("web", replicas=2, cpu="1", memory="1Gi"))

    response = change(as_(owner), "ondemand", cpu="1", memory="16Gi", pods="10")

    assert response.status_code == 400 and "already request" in " ".join(feedback(response))
    assert TierQuota.objects.get(project=project, tier="ondemand").cpu_milli == 8000


def test_a_second_request_while_one_is_pending_is_a_conflict_on_the_form(project, owner, as_):
    change(as_(owner), cpu="12")

    response = change(as_(owner), cpu="16")

    assert response.status_code == 409 and "already waiting for a platform admin" in text(response)


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_cannot_change_quota(project, request, who, as_):
    response = change(as_(request.getfixturevalue(who)), cpu="1")

    assert response.status_code == 403 and not TierQuota.objects.filter(cpu_milli__gt=0).exists()


def test_an_unknown_tier_is_a_400_and_changes_nothing(project, owner, as_):
    response = change(as_(owner), tier="gold", cpu="1")

    assert response.status_code == 400 and not TierQuota.objects.filter(cpu_milli__gt=0).exists()


# --- provisioning ---------------------------------------------------------------------------------------


def test_provisioning_polls_until_every_cluster_is_ready_or_failed(project, owner, as_):
    a, b = Cluster.objects.get(name="member-a"), Cluster.objects.get(name="member-b")
    project.refresh_from_db()
    ClusterProvisioning.objects.create(
        project=project, cluster=a, state="ready", observed_generation=project.generation
    )
    client = as_(owner)

    waiting = text(client.get("/projects/ads/provisioning/", **HX))
    ClusterProvisioning.objects.create(
        project=project, cluster=b, state="failed", last_error="member-b: 503 Service Unavailable"
    )
    settled = text(client.get("/projects/ads/provisioning/", **HX))

    assert 'hx-trigger="every 2s, provisioning-changed from:body"' in waiting and "Queued" in waiting
    assert 'hx-trigger="provisioning-changed from:body"' in settled
    assert 'data-cluster="member-a" data-state="ready"' in settled
    assert 'data-cluster="member-b" data-state="failed"' in settled and "503 Service Unavailable" in settled
    assert 'action="/projects/ads/provisioning/member-b/retry/"' in settled


def test_a_record_behind_the_projects_generation_is_shown_as_updating(project, owner, as_):
    a = Cluster.objects.get(name="member-a")
    ClusterProvisioning.objects.create(project=project, cluster=a, state="ready", observed_generation=0)

    page = text(as_(owner).get("/projects/ads/provisioning/", **HX))

    assert 'data-cluster="member-a" data-state="updating"' in page and "every 2s" in page


@pytest.mark.parametrize("who", ["owner", "developer"])
def test_owners_and_developers_retry_a_failed_cluster(project, request, who, as_, monkeypatch):
    queued = []
    monkeypatch.setattr(
        "projects.tasks.provision_on_cluster.apply_async", lambda args, **options: queued.append(tuple(args))
    )
    b = Cluster.objects.get(name="member-b")
    ClusterProvisioning.objects.create(project=project, cluster=b, state="failed", last_error="down")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("django.db.transaction.on_commit", lambda fn, *a, **k: fn())
        response = as_(request.getfixturevalue(who)).post("/projects/ads/provisioning/member-b/retry/", **HX)

    assert response.status_code == 200 and "every 2s" in text(response)  # watches the retry
    assert queued == [(project.pk, b.pk)]
    assert AuditEvent.objects.filter(action="project.provisioning.retry", cluster="member-b").exists()


def test_a_viewer_cannot_retry(project, viewer, as_):
    response = as_(viewer).post("/projects/ads/provisioning/member-b/retry/", **HX)

    assert response.status_code == 403 and not AuditEvent.objects.filter(action__contains="retry").exists()


# --- archive --------------------------------------------------------------------------------------------


def test_archiving_is_refused_with_the_workload_names_while_workloads_exist(project, owner, caches, as_):
    fill(caches, HOST, workload_cr("web"), workload_cr("nightly", kind="PinPod"))

    response = as_(owner).post("/projects/ads/archive/", **HX)

    assert response.status_code == 409
    assert "still has workloads" in text(response) and "PinApp/web" in text(response)
    assert "PinPod/nightly" in text(response) and Project.objects.get(name="ads").is_active


def test_archiving_an_empty_project_opens_its_archived_page(project, owner, as_, changed):
    client = as_(owner)

    response = client.post("/projects/ads/archive/", **HX)
    page = text(client.get("/projects/ads/"))

    assert response.status_code == 200 and response["HX-Redirect"] == "/projects/ads/"
    assert not Project.objects.get(name="ads").is_active
    assert "Archived" in page and "/archive/" not in page and 'class="quota-change"' not in page


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_cannot_archive(project, request, who, as_):
    response = as_(request.getfixturevalue(who)).post("/projects/ads/archive/", **HX)

    assert response.status_code == 403 and Project.objects.get(name="ads").is_active


def test_a_plain_post_is_answered_with_a_redirect_to_the_section(project, owner, as_, changed):
    response = as_(owner).post(
        "/projects/ads/basics/", {"display_name": "Ads", "team": "ads", "cost_center": "CC-2", "description": ""}
    )

    assert response.status_code == 302 and response["Location"] == "/projects/ads/#basics"


def test_the_list_shows_roles_through_groups_and_provisioning(project, viewer, as_):
    group = Group.objects.create(name="ads-devs")
    viewer.groups.add(group)
    Membership.objects.create(project=project, group=group, role="developer")

    page = text(as_(viewer).get("/projects/"))

    assert "Developer" in page  # the group's role beats the viewer's own
    assert "0/2 ready" in page


def test_an_unknown_role_or_level_gets_the_services_message_once(project, owner, other_user, admin_user, as_):
    role = add(as_(owner), "user", other_user.username, "superuser")
    level = as_(admin_user).post("/projects/ads/pod-security/", {"pod_security": "root"}, **HX)

    assert role.status_code == 400 and feedback(role) == [
        "'superuser' is not a role; use one of owner, developer, viewer."
    ]
    assert level.status_code == 400
    assert feedback(level) == ["'root' is not a level; use one of privileged, baseline, restricted."]
    assert Project.objects.get(name="ads").pod_security == "baseline"


@pytest.mark.parametrize("count", [1, 6])
def test_the_project_list_does_a_constant_number_of_queries(region, owner, as_, django_assert_max_num_queries, count):
    from tests.support.factories import make_project

    for i in range(count):
        make_project(f"p{i}", owner)
    client = as_(owner)

    with django_assert_max_num_queries(9):  # 9: the bell's unread count (the navigation)
        response = client.get("/projects/")

    assert response.status_code == 200 and text(response).count('href="/projects/p') == count


@pytest.mark.parametrize("op", ["remove", "role"])
def test_a_member_row_naming_a_nul_is_no_member_never_a_500(project, owner, as_, op):
    client = as_(owner)
    client.raise_request_exception = False
    before = list(Membership.objects.values_list("pk", "role"))

    response = client.post(
        "/projects/ads/members/", {"op": op, "kind": "user", "name": "de\x00vi", "user-de\x00vi-role": "viewer"}, **HX
    )

    assert response.status_code < 500
    assert list(Membership.objects.values_list("pk", "role")) == before
