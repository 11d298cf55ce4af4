"""``pincompute access`` against the real portal (``live_server``) with real API tokens: a viewer asks, the owner
lists and approves, the grant shows with its time left and is revoked; a developer may not approve (exit 1, 403);
a duration past the maximum is refused naming the field; a bad duration is a usage error."""

from __future__ import annotations

import io

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from base.models import AuditEvent

pytestmark = pytest.mark.django_db(transaction=True)


def test_ask_list_approve_and_revoke_from_the_cli(live_server, project, owner, developer, viewer, monkeypatch):
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)

    tokens = {u.pk: create_api_token(user=u, name="cli", days=1)[1] for u in (owner, developer, viewer)}

    def cli(user, *argv: str) -> tuple[int, str, str]:
        monkeypatch.setenv("PINCONSOLE_TOKEN", tokens[user.pk])
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    code, out, err = cli(viewer, "access", "request", "-n", "ads", "developer", "--for", "4h", "--reason", "INC-42")
    assert code == 0, err
    request_id = out.split()[1].rstrip(":")
    code, out, _ = cli(owner, "access", "list", "-n", "ads", "--state", "pending")
    assert code == 0 and f"{request_id}  vic  developer  4h00m  pending  INC-42" in out

    code, _, err = cli(developer, "access", "approve", "-n", "ads", request_id)
    assert code == 1 and "permission_denied" in err
    code, out, err = cli(owner, "access", "approve", "-n", "ads", request_id, "--reason", "ok")
    assert code == 0 and "approved: grant" in out, err
    grant_id = out.split()[-1]
    code, out, _ = cli(viewer, "access", "list", "-n", "ads")
    assert f"{grant_id}  vic  developer  3h59m  dev1" in out or f"{grant_id}  vic  developer  4h00m  dev1" in out

    assert cli(owner, "access", "revoke", "-n", "ads", grant_id)[:2] == (0, f"grant {grant_id} revoked\n")
    code, _, err = cli(owner, "access", "grant", "-n", "ads", "vic", "owner", "--for", "30d", "--reason", "x")
    assert code == 1 and "duration_seconds" in err
    assert cli(owner, "access", "grant", "-n", "ads", "vic", "owner", "--for", "soon", "--reason", "x")[0] == 2
    actions = list(
        AuditEvent.objects.filter(action__startswith="project.access.").order_by("pk").values_list("action", flat=True)
    )
    assert actions == ["project.access.request", "project.access.approve", "project.access.revoke"]
