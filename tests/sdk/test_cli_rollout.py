"""``pincompute rollout undo`` and ``describe``'s diagnosis through the served portal (the fake host's ``web``, with
two revisions): the rollback prints each field it changed, a viewer is refused (exit 1), a target that is not
KIND/NAME is a usage error (exit 2), a stale --if-match a conflict (exit 4); describe says why first."""

from __future__ import annotations

import pytest

from base.models import AuditEvent

pytestmark = pytest.mark.django_db(transaction=True)


def test_rollout_undo_goes_back_to_the_previous_revision_and_prints_what_changed(web, cli, developer):
    assert cli(developer, "rollout", "undo", "pinapp/web", "-p", "ads", "--if-match", "999")[0] == 4

    code, out, err = cli(developer, "rollout", "undo", "pinapp/web", "-p", "ads")

    assert (code, out) == (0, "pinapp/web rolled back to revision 1\n  spec.replicas: 2 -> 1\n"), err
    assert AuditEvent.objects.filter(action="workload.rollback", target_name="web").count() == 1
    again = cli(developer, "rollout", "undo", "pinapp/web", "--to-revision", "1", "-p", "ads")
    assert again == (0, "pinapp/web skipped rollback (already at revision 1)\n", "")


def test_a_viewer_is_refused_and_a_bad_target_is_a_usage_error(web, cli, viewer):
    code, out, err = cli(viewer, "rollout", "undo", "pinapp/web", "-p", "ads")
    assert (code, out) == (1, "") and "Error from server (permission_denied)" in err, err
    assert cli(viewer, "rollout", "undo", "pinapp", "-p", "ads")[0] == 2
    assert cli(viewer, "rollout", "undo", "pinapp/web", "--to-revision", "0", "-p", "ads")[0] == 2
    assert not AuditEvent.objects.filter(action="workload.rollback").exists()


def test_describe_says_why_first(web, cli, viewer):
    code, out, err = cli(viewer, "describe", "pinapp", "web", "-p", "ads")

    assert code == 0, err
    state, why, step = out.splitlines()[:3]
    assert state == "State:        MemberUnreachable"
    assert why.startswith("Why:          Member member-b cannot be reached since ")
    assert step.startswith("Next step:    Wait for the member to return") and step.endswith("/clusters/member-b/)")
