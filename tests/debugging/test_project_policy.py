"""The project's policy where shells open: it can forbid a shell in the platform's sidecars even to the holder of a
time-limited sidecar-exec grant (``debugging.authz``), and it can ask that the owners be told of every shell opened
in the project (``debugging.notices``: once per session, never to the one who opened it)."""

from __future__ import annotations

import pytest

from base.errors import Forbidden
from debugging import services
from debugging.authz import resolve_pod
from notifications.models import Notification
from projects.access_requests.services import grant_access
from projects.models import Membership
from projects.policy import set_project_policy
from tests.support.fakes import fake_pod

pytestmark = pytest.mark.django_db
SIDECAR = "pincompute-security"


@pytest.fixture
def world(project, fake_member, user, other_user, admin_user, django_user_model):
    """``ads``: ``user`` a developer, ``other_user`` and ``boss`` owners; web-1 has the platform's sidecar."""
    boss = django_user_model.objects.create_user("boss", "boss@example.com", "pw-boss-Secret!")
    Membership.objects.create(project=project, user=user, role="developer")
    Membership.objects.create(project=project, user=other_user, role="owner")
    Membership.objects.create(project=project, user=boss, role="owner")
    fake_member.put("pods", fake_pod("web-1", "proj-ads", containers=("app", SIDECAR)))
    return {"developer": user, "owners": (other_user, boss), "admin": admin_user}


def sidecar_shell(user):
    return resolve_pod(user, "member-x", "proj-ads", "web-1", container=SIDECAR, need_exec=True)


def test_a_sidecar_exec_grant_opens_the_sidecar_until_the_policy_forbids_it(project, world):
    developer, admin = world["developer"], world["admin"]
    grant_access(
        project, username=developer.username, access="sidecar-exec", duration_seconds=3600, reason="INC-7", actor=admin
    )
    assert sidecar_shell(developer).may_exec(SIDECAR)

    set_project_policy(project, {"sidecarExec": False}, actor=admin)

    with pytest.raises(Forbidden) as refused:
        sidecar_shell(developer)
    assert refused.value.message.endswith("(policy: sidecar exec).")
    assert sidecar_shell(admin).may_exec(SIDECAR)  # platform admins keep it
    assert resolve_pod(developer, "member-x", "proj-ads", "web-1", container="app", need_exec=True).may_exec("app")


def open_shell(user, session: int) -> None:
    ref = resolve_pod(user, "member-x", "proj-ads", "web-1", container="app", need_exec=True)
    services.record_shell_opened(ref, "app", actor=user, session=session, shell="sh", recorded=False)


def test_the_owners_are_told_of_a_shell_once_per_session_when_the_policy_asks(
    project, world, django_capture_on_commit_callbacks
):
    set_project_policy(project, {"notifyOnShell": True}, actor=world["admin"])
    owner = world["owners"][0]

    with django_capture_on_commit_callbacks(execute=True):
        open_shell(world["developer"], 41)
        open_shell(world["developer"], 41)  # the same session again: nothing more
        open_shell(owner, 42)  # an owner's own shell: the other owner only

    told = Notification.objects.filter(event="shell.opened")
    assert sorted((n.recipient.username, n.key, n.count) for n in told) == [
        ("boss", "shell-session/41", 1),
        ("boss", "shell-session/42", 1),
        (owner.username, "shell-session/41", 1),
    ]
    assert "member-x/proj-ads/web-1/app" in told.first().text
    assert not told.filter(recipient=world["developer"]).exists()


def test_nobody_is_told_when_the_policy_does_not_ask(project, world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        open_shell(world["developer"], 43)

    assert not Notification.objects.filter(event="shell.opened").exists()
