"""Tier quota: changes apply at once, wait for approval, or are refused with the numbers; forced
decreases only after a preview; the overview reads grants, usage and headroom."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from base.errors import Conflict, Forbidden, Invalid, NotFound, Unavailable
from base.models import AuditEvent
from pincompute.grants import Allocation
from pincompute.quantity import format_cpu
from pincompute.quota import workload_pods, workload_request
from pincompute.runtime import load_profile
from pincompute.specs import parse
from pincompute.tiers import Tier
from projects.grants import QuotaInput
from projects.headroom import quota_overview
from projects.members import MemberInput, remove_member, set_member
from projects.models import QuotaRequest, TierQuota
from projects.quota import (
    approve_request,
    change_quota,
    force_decrease,
    pending_requests,
    preview_forced_decrease,
    reject_request,
)
from tests.support.factories import HOST, fill, make_project, workload_cr

pytestmark = pytest.mark.django_db
GI = 2**30


def grant(project, tier: str = "reserved") -> Allocation:
    q = TierQuota.objects.get(project=project, tier=tier)
    return Allocation(q.cpu_milli, q.memory_bytes, q.gpu, q.pods)


def request_of(cr) -> Allocation:
    workload = parse(cr)
    return Allocation.of(workload_request(workload, profile=load_profile()), workload_pods(workload))


@pytest.fixture
def changed(monkeypatch):
    names: list[str] = []
    monkeypatch.setattr("projects.provisioning.project_changed", lambda p: names.append(p.name))
    return names


def test_an_increase_within_the_limit_and_headroom_applies_at_once(project, owner, changed):
    change = change_quota(project, "reserved", QuotaInput(cpu="8", memory="32Gi", pods="50"), actor=owner)

    assert change.applied and change.request is None
    assert grant(project) == change.after == Allocation(8000, 32 * GI, 0, 50)
    event = AuditEvent.objects.get(action="project.quota.set")
    assert event.before["cpu_milli"] == 0 and event.after == Allocation(8000, 32 * GI, 0, 50).to_json()
    assert changed == ["ads"]


@pytest.mark.parametrize(
    ("asked", "why"),
    [
        (QuotaInput(cpu="9"), "Reserved cpu: the increase of 9 is more than the 8 approved without review"),
        (QuotaInput(gpu="1"), "Reserved gpu: the increase of 1 is more than the 0 approved without review"),
    ],
)
def test_an_increase_beyond_the_auto_approve_limit_waits_for_approval(project, owner, changed, asked, why):
    change = change_quota(project, Tier.RESERVED, asked, actor=owner, reason="launch")

    assert not change.applied and change.request.state == "pending" and change.request.reason == "launch"
    assert grant(project) == Allocation() and changed == []
    assert why in AuditEvent.objects.get(action="project.quota.request").summary


def test_an_admins_change_has_no_limit_but_the_pools(project, admin_user):
    assert change_quota(project, "reserved", QuotaInput(cpu="64", gpu="4"), actor=admin_user).applied
    over = change_quota(project, "ondemand", QuotaInput(cpu="33"), actor=admin_user)

    assert not over.applied and over.request.tier == "ondemand"


def test_the_auto_approve_limit_comes_from_settings(project, owner, settings):
    settings.PROJECT_QUOTA_AUTO_APPROVE = {**settings.PROJECT_QUOTA_AUTO_APPROVE, "gpu": "2"}

    assert change_quota(project, "reserved", QuotaInput(gpu="2"), actor=owner).applied


def test_one_pending_request_per_tier(project, owner):
    first = change_quota(project, "reserved", QuotaInput(cpu="20"), actor=owner).request

    with pytest.raises(Conflict) as refused:
        change_quota(project, "reserved", QuotaInput(cpu="30"), actor=owner)

    assert f"#{first.pk}" in refused.value.message and QuotaRequest.objects.count() == 1


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_cannot_change_quota(project, request, who):
    with pytest.raises(Forbidden):
        change_quota(project, "reserved", QuotaInput(cpu="1"), actor=request.getfixturevalue(who))

    assert grant(project) == Allocation() and not QuotaRequest.objects.exists()


def test_another_tenants_project_and_a_removed_member_get_not_found(project, other_project, owner, developer):
    set_member(project, MemberInput("user", developer.username, "owner"), actor=owner)
    remove_member(project, "user", developer.username, actor=owner)

    with pytest.raises(NotFound):
        change_quota(other_project, "reserved", QuotaInput(cpu="1"), actor=owner)
    with pytest.raises(NotFound):
        change_quota(project, "reserved", QuotaInput(cpu="1"), actor=developer)

    assert grant(other_project) == grant(project) == Allocation()


@pytest.mark.parametrize(
    ("field", "value"), [("cpu", "-1"), ("cpu", "NaN"), ("memory", "1e309"), ("gpu", "10Pi"), ("tier", "gold")]
)
def test_bad_input_is_refused_and_nothing_changes(project, owner, field, value):
    tier = value if field == "tier" else "reserved"
    data = QuotaInput() if field == "tier" else QuotaInput(**{field: value})

    with pytest.raises(Invalid) as refused:
        change_quota(project, tier, data, actor=owner)

    assert [f.path for f in refused.value.fields] == [field]
    assert grant(project) == Allocation() and not QuotaRequest.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="project.quota").exists()


def test_a_decrease_below_usage_is_refused_with_the_numbers(project, owner, admin_user, caches):
    change_quota(project, "ondemand", QuotaInput(cpu="16", memory="16Gi", pods="10"), actor=admin_user)
    app = workload_cr("ranker", tier="OnDemand", replicas=4, cpu="2", memory="1Gi")
    fill(caches, HOST, app)
    fill(caches, "member-a", app)  # a member's shard carries the full spec: never counted
    fill(caches, "member-b", app)
    used = request_of(app)

    with pytest.raises(Invalid) as refused:
        change_quota(project, "ondemand", QuotaInput(cpu="4", memory="16Gi", pods="2"), actor=owner)

    messages = {f.path: f.message for f in refused.value.fields}
    assert set(messages) == {"cpu", "pods"}
    assert messages["cpu"].startswith(
        f"OnDemand cpu: the new grant of 4 is {format_cpu(used.cpu_milli - 4000)} below the "
        f"{format_cpu(used.cpu_milli)} the project's workloads already request"
    )
    assert "the new grant of 2 is 2 below the 4" in messages["pods"]
    assert grant(project, "ondemand") == Allocation(16000, 16 * GI, 0, 10)


def test_a_decrease_within_usage_applies_at_once_whatever_its_size(project, owner, admin_user, caches):
    change_quota(project, "ondemand", QuotaInput(cpu="30", memory="100Gi"), actor=admin_user)
    fill(caches, HOST, workload_cr("ranker", tier="OnDemand", replicas=1))

    assert change_quota(project, "ondemand", QuotaInput(cpu="2", memory="2Gi"), actor=owner).applied
    assert grant(project, "ondemand") == Allocation(2000, 2 * GI, 0, 0)


def test_a_decrease_while_a_cache_is_not_synced_waits(project, owner, admin_user, caches):
    change_quota(project, "ondemand", QuotaInput(cpu="8"), actor=admin_user)
    fill(caches, "member-a").synced = False

    with pytest.raises(Unavailable, match="member-a: cache not synced"):
        change_quota(project, "ondemand", QuotaInput(cpu="4"), actor=owner)
    assert grant(project, "ondemand").cpu_milli == 8000


def test_approving_applies_the_request_and_records_the_decision(project, owner, admin_user, changed):
    request = change_quota(project, "reserved", QuotaInput(cpu="40", gpu="2"), actor=owner).request

    approved = approve_request(request.pk, actor=admin_user, reason="capacity planned")

    assert (approved.state, approved.decided_by) == ("applied", admin_user)
    assert approved.decision_reason == "capacity planned"
    assert approved.applied_at is not None and grant(project) == Allocation(40000, 0, 2, 0)
    assert AuditEvent.objects.get(action="project.quota.approve").before == {"state": "pending"}
    assert changed == ["ads"]
    with pytest.raises(Conflict, match="already applied"):
        approve_request(request.pk, actor=admin_user)


def test_only_platform_admins_decide_requests(project, owner):
    request = change_quota(project, "reserved", QuotaInput(cpu="40"), actor=owner).request

    with pytest.raises(Forbidden):
        approve_request(request.pk, actor=owner)
    with pytest.raises(Forbidden):
        reject_request(request.pk, actor=owner, reason="no")

    assert QuotaRequest.objects.get().state == "pending" and grant(project) == Allocation()


def test_approval_is_refused_with_the_numbers_when_the_pools_cannot_hold_it_now(project, owner, admin_user):
    other = make_project("ml", admin_user)
    first = change_quota(project, "reserved", QuotaInput(cpu="40"), actor=owner).request
    change_quota(other, "reserved", QuotaInput(cpu="30"), actor=admin_user)  # applied: 64 - 30 = 34 left

    with pytest.raises(Conflict) as refused:
        approve_request(first.pk, actor=admin_user)

    assert refused.value.fields[0].path == "cpu"
    assert refused.value.fields[0].message.startswith(
        "Reserved cpu: the increase of 40 is 6 more than the 34 left in the region's Reserved pools"
    )
    assert QuotaRequest.objects.get(pk=first.pk).state == "pending" and grant(project) == Allocation()


def test_rejecting_needs_a_reason_and_ends_the_request(project, owner, admin_user):
    request = change_quota(project, "reserved", QuotaInput(cpu="40"), actor=owner).request

    with pytest.raises(Invalid) as no_reason:
        reject_request(request.pk, actor=admin_user, reason=" ")
    rejected = reject_request(request.pk, actor=admin_user, reason="use OnDemand")

    assert [f.path for f in no_reason.value.fields] == ["reason"]
    assert (rejected.state, rejected.decision_reason) == ("rejected", "use OnDemand")
    assert AuditEvent.objects.get(action="project.quota.reject").summary == "use OnDemand"
    with pytest.raises(Conflict):
        approve_request(request.pk, actor=admin_user)
    with pytest.raises(NotFound):
        approve_request(10_000, actor=admin_user)
    assert grant(project) == Allocation()


@pytest.mark.parametrize(
    ("tier", "label", "said", "not_said"),
    [
        ("preemptible", "Preemptible", ["reclaims them", "pods stop", "Reclaimed"], "keep running"),
        ("ondemand", "OnDemand", ["keep running", "never reclaims OnDemand", "MemberRefused"], "reclaims them"),
        ("reserved", "Reserved", ["keep running", "never reclaims Reserved", "ChangePending"], "reclaims them"),
    ],
)
def test_a_forced_decrease_says_what_the_federation_does_to_each_tiers_workloads(
    project, admin_user, caches, changed, tier, label, said, not_said
):
    change_quota(project, tier, QuotaInput(cpu="6", memory="16Gi", pods="10"), actor=admin_user)
    old = workload_cr("old", tier=label, created="2026-11-01T00:00:00Z")
    new = workload_cr("new", tier=label, created="2026-11-20T00:00:00Z")
    fill(caches, HOST, old, new)

    preview = preview_forced_decrease(project, tier, QuotaInput(cpu="3", memory="16Gi", pods="10"))

    assert [w.name for w in preview.workloads] == ["new"]
    assert all(part in preview.consequence for part in said) and not_said not in preview.consequence


def test_the_queue_lists_pending_requests_oldest_first(project, owner, admin_user):
    first = change_quota(project, "reserved", QuotaInput(cpu="40"), actor=owner).request
    second = change_quota(project, "ondemand", QuotaInput(cpu="20"), actor=owner).request
    decided = change_quota(project, "preemptible", QuotaInput(cpu="20"), actor=owner).request
    reject_request(decided.pk, actor=admin_user, reason="no")

    with CaptureQueriesContext(connection) as queries:
        queue = list(pending_requests())
        [(r.project.name, r.requested_by.username) for r in queue]

    assert queue == [first, second] and len(queries) == 1


def test_a_forced_decrease_shows_what_no_longer_fits_and_needs_the_previews_token(project, admin_user, caches, changed):
    change_quota(project, "ondemand", QuotaInput(cpu="16", memory="16Gi", pods="10"), actor=admin_user)
    old = workload_cr("old", replicas=2, created="2026-11-01T00:00:00Z")
    new = workload_cr("new", replicas=4, created="2026-11-20T00:00:00Z")
    fill(caches, HOST, old, new)
    smaller = QuotaInput(cpu="3", memory="16Gi", pods="10")

    preview = preview_forced_decrease(project, "ondemand", smaller)

    assert [(w.name, w.kind, w.tier) for w in preview.workloads] == [("new", "PinApp", Tier.ONDEMAND)]
    assert preview.workloads[0].requests == request_of(new) and "keep running" in preview.consequence
    with pytest.raises(Invalid) as blind:
        force_decrease(project, "ondemand", smaller, actor=admin_user, reason="reclaim", confirm="")
    with pytest.raises(Conflict):
        force_decrease(project, "ondemand", smaller, actor=admin_user, reason="reclaim", confirm="0" * 20)
    assert [f.path for f in blind.value.fields] == ["confirm"] and grant(project, "ondemand").cpu_milli == 16000

    force_decrease(project, "ondemand", smaller, actor=admin_user, reason="reclaim", confirm=preview.token)

    assert grant(project, "ondemand") == Allocation(3000, 16 * GI, 0, 10)
    event = AuditEvent.objects.get(action="project.quota.force_decrease")
    assert event.summary == "reclaim (no longer fitting: PinApp/new)" and event.actor == admin_user
    assert changed[-1] == "ads"


def test_a_stale_preview_is_refused(project, admin_user, caches):
    change_quota(project, "ondemand", QuotaInput(cpu="16"), actor=admin_user)
    smaller = QuotaInput(cpu="1")
    token = preview_forced_decrease(project, "ondemand", smaller).token
    fill(caches, HOST, workload_cr("late", replicas=1))

    with pytest.raises(Conflict, match="preview again"):
        force_decrease(project, "ondemand", smaller, actor=admin_user, reason="reclaim", confirm=token)
    assert grant(project, "ondemand").cpu_milli == 16000


def test_only_platform_admins_force_and_a_forced_change_only_decreases(project, owner, admin_user):
    token = preview_forced_decrease(project, "ondemand", QuotaInput()).token

    with pytest.raises(Forbidden):
        force_decrease(project, "ondemand", QuotaInput(), actor=owner, reason="x", confirm=token)
    with pytest.raises(Invalid, match="only decreases"):
        preview_forced_decrease(project, "ondemand", QuotaInput(cpu="1"))


def test_an_archived_project_keeps_its_quota(project, owner, admin_user):
    project.state = "archived"
    project.save()

    with pytest.raises(Conflict, match="archived"):
        change_quota(project, "reserved", QuotaInput(cpu="1"), actor=owner)


def test_the_overview_shows_grant_usage_running_pods_and_headroom(project, owner, admin_user, caches):
    change_quota(project, "ondemand", QuotaInput(cpu="16", memory="16Gi", pods="10"), actor=admin_user)
    make_project("ml", admin_user, quotas={"ondemand": QuotaInput(cpu="10")})
    app = workload_cr("ranker", replicas=3, clusters=("member-a", "member-b"))
    pod = {
        "metadata": {"name": "ranker-1", "namespace": "proj-ads"},
        "spec": {
            "priorityClassName": "pincompute-ondemand",
            "containers": [{"name": "app", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
        },
        "status": {"phase": "Running"},
    }
    fill(caches, HOST, app)
    fill(caches, "member-a", app, pods=[pod])  # its shards: the pods count as running, the shards not at all
    fill(caches, "member-b", app)
    request = change_quota(project, "reserved", QuotaInput(cpu="20"), actor=owner).request

    overview = quota_overview(project)

    ondemand = overview.tier(Tier.ONDEMAND)
    assert ondemand.grant == Allocation(16000, 16 * GI, 0, 10)
    assert ondemand.usage == request_of(app) and ondemand.usage.pods == 3
    assert ondemand.running == Allocation(1000, GI, 0, 1)
    assert ondemand.region_capacity.cpu_milli == 32000 and ondemand.region_granted.cpu_milli == 26000
    assert ondemand.region_headroom.cpu_milli == 6000
    rooms = {room.cluster: room for room in ondemand.clusters}
    assert rooms["member-a"].capacity.cpu_milli == 32000 and rooms["member-a"].headroom.cpu_milli == 31000
    assert rooms["member-b"].capacity.cpu_milli == 0
    assert overview.tier(Tier.RESERVED).pending == request and ondemand.pending is None
    assert overview.tier(Tier.PREEMPTIBLE).region_capacity.cpu_milli == 104000
    assert [(w.name, w.clusters) for w in overview.workloads] == [("ranker", ("member-a", "member-b"))]
    assert overview.problems == []


def test_only_admitted_workloads_hold_the_grant_and_the_waiting_ones_are_listed(project, admin_user, caches):
    change_quota(project, "ondemand", QuotaInput(cpu="16", memory="16Gi", pods="10"), actor=admin_user)
    held = workload_cr("held", replicas=2)
    refused = workload_cr("refused", replicas=4, admitted=False, clusters=())
    undecided = workload_cr("undecided", replicas=1, admitted=None, clusters=())
    fill(caches, HOST, held, refused, undecided)
    fill(caches, "member-a", held, refused)  # shards on a member are never counted

    overview = quota_overview(project)
    preview = preview_forced_decrease(project, "ondemand", QuotaInput(cpu="1", memory="16Gi", pods="10"))

    assert overview.tier(Tier.ONDEMAND).usage == request_of(held)
    rows = {w.name: (w.admitted, w.waiting, w.clusters) for w in overview.workloads}
    assert rows == {
        "held": (True, "", ("member-a",)),
        "refused": (False, "OnDemand cpu: over the grant", ()),
        "undecided": (False, "waiting for federation admission", ()),
    }
    assert [w.name for w in preview.workloads] == ["held"]  # a waiting workload holds nothing to reclaim
