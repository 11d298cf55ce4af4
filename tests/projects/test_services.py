"""Project services validate what the admin's forms used to check for them."""

import pytest

from base.errors import Invalid
from base.models import AuditEvent
from projects import services
from projects.models import Membership, TierQuota
from tests.clusters.factories import make_cluster

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(admin_user):
    return services.create_project(name="ads", team="ads", cost_center="CC-1", actor=admin_user)


def test_a_member_needs_a_known_role(project, user, admin_user):
    with pytest.raises(Invalid) as refused:
        services.add_member(project=project, user=user, role="root", actor=admin_user)

    assert [f.path for f in refused.value.fields] == ["role"]
    assert not Membership.objects.exists()


def test_removing_a_member_is_audited(project, user, admin_user):
    services.add_member(project=project, user=user, role="viewer", actor=admin_user)

    services.remove_member(project=project, user=user, actor=admin_user)
    services.remove_member(project=project, user=user, actor=admin_user)  # idempotent

    assert not Membership.objects.exists()
    event = AuditEvent.objects.get(action="project.member.remove")
    assert event.before == {"role": "viewer"} and event.project_name == "ads"


@pytest.mark.parametrize(
    ("amounts", "field"),
    [
        ({"tier": "gold"}, "tier"),
        ({"cpu_milli": -1}, "cpu_milli"),
        ({"memory_bytes": 2**64}, "memory_bytes"),
        ({"gpu": "4"}, "gpu"),
    ],
)
def test_quota_grants_are_checked(project, admin_user, amounts, field):
    given = {"tier": "reserved", "cpu_milli": 1000, "memory_bytes": 2**30, "gpu": 0, **amounts}

    with pytest.raises(Invalid) as refused:
        services.grant_quota(project=project, cluster=make_cluster(), actor=admin_user, **given)

    assert [f.path for f in refused.value.fields] == [field]
    assert not TierQuota.objects.exists()
