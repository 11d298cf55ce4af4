# ruff: noqa: F811 - fixtures imported from other modules are named as parameters
"""Each cause the diagnosis names, against the real stack (host and member apiservers, kwok, the federation
operator, the portal's watch caches): waiting for quota, no cluster fits, a crash loop, an image that cannot be
pulled (kwok's stages for images under crashloop.local/ and unreachable.invalid/, devtools/localcp/kwok_stages.yaml)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from clusters import runtime
from devtools.waiting import wait_for
from pincompute.diagnosis import State
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.submission import APP, pinapp
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads import services
from workloads.diagnosis import Shown, diagnosis_of

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


@pytest.fixture
def project(admin_user: Any, user: Any) -> Any:
    return team_project("why", admin_user, user, grants={"ondemand": ("3", "8Gi", "0", "0")})


def submitted(project: Any, user: Any, created: list, name: str, **spec: Any) -> None:
    services.submit_workload(project, pinapp(name, **spec), actor=user)
    created.append(("PinApp", project.namespace, name))


def diagnosed(project: Any, name: str, state: State) -> Shown:
    """The workload's diagnosis once it names ``state`` (from the portal's caches, as the page reads it)."""

    def now() -> Shown | None:
        obj = runtime.host_cache().get("pinapps", project.namespace, name)
        shown = diagnosis_of(project, obj) if obj is not None else None
        return shown if shown is not None and shown.diagnosis.state is state else None

    return wait_for(now, 120, interval=1, what=f"{name} diagnosed {state}")


def test_a_workload_over_the_grant_waits_for_quota_naming_who_holds_it(operator, created, project, user):
    one_cpu = {**APP, "resources": {"requests": {"cpu": "1", "memory": "64Mi"}}}
    submitted(project, user, created, "holder", replicas=2, template={"containers": [one_cpu]})
    diagnosed(project, "holder", State.RUNNING)
    submitted(project, user, created, "late", replicas=2, template={"containers": [one_cpu]})

    found = diagnosed(project, "late", State.WAITING_FOR_QUOTA).diagnosis

    assert re.fullmatch(
        r"Waiting for quota: OnDemand cpu \S+ of 3 used by holder, this workload asks \S+ \(1st in the OnDemand "
        r"queue\)\.",
        found.cause,
    ), found.cause


def test_a_workload_no_member_can_take_says_each_members_reason(operator, created, project, user):
    template = {"containers": [APP], "hardwareFamily": "p4d"}
    submitted(project, user, created, "picky", zones=["local-1a"], template=template)

    found = diagnosed(project, "picky", State.NO_CLUSTER_FITS).diagnosis

    # an earlier test of this worker may have left a cluster registered (it is named too, after these)
    expected = r"No cluster fits: member-a has no p4d hardware, member-b filtered by zone(, [^,]+)*\."
    assert re.fullmatch(expected, found.cause), found.cause


def test_a_crash_loop_says_the_exit_code_and_the_last_line(operator, created, project, user):
    crashing = {**APP, "image": "crashloop.local/ads/app:1"}
    submitted(project, user, created, "crashy", replicas=1, template={"containers": [crashing]})

    found = diagnosed(project, "crashy", State.CRASH_LOOP)

    assert found.diagnosis.cause == (
        'Container app crash-loops on member-a: exit 1 after 3 restarts, last line "crashloop.local: this program '
        'always exits 1".'
    )
    assert found.link.startswith(f"/debug/member-a/{project.namespace}/crashy-")


def test_an_image_that_cannot_be_pulled_is_named(operator, created, project, user):
    unpullable = {**APP, "image": "unreachable.invalid/ads/app:1"}
    submitted(project, user, created, "nopull", replicas=1, template={"containers": [unpullable]})

    found = diagnosed(project, "nopull", State.IMAGE_PULL).diagnosis

    assert found.cause == (
        "Image unreachable.invalid/ads/app:1 cannot be pulled on member-a: ImagePullBackOff, Back-off pulling image "
        "'unreachable.invalid/ads/app:1'."
    )
