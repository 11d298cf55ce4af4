"""``pincompute policy`` against the real portal (``live_server``) with real API tokens: a platform admin changes a
project's policy field by field and the defaults (audited), a member reads it and is refused a change (403, exit
code 1), a bad value names its field, and another tenant's project is not found."""

from __future__ import annotations

import io
import json

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from base.models import AuditEvent


@pytest.mark.django_db(transaction=True)
def test_an_admin_sets_the_policy_a_member_reads_it_and_may_not_change_it(
    live_server, project, other_project, owner, admin_user, monkeypatch
):
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)

    def cli(token: str, *argv: str) -> tuple[int, str, str]:
        monkeypatch.setenv("PINCONSOLE_TOKEN", token)
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    admin = create_api_token(user=admin_user, name="ops", days=1)[1]
    owns = create_api_token(user=owner, name="own", days=1)[1]

    code, out, err = cli(
        admin, "policy", "set", "-n", "ads", "--kinds", "PinApp,PinPod", "--registries", "registry.local",
        "--max-cpu", "4", "--sidecar-exec", "off",
    )  # fmt: skip
    assert (code, err) == (0, ""), err
    assert "allowed kinds:      PinApp, PinPod\n" in out and "max per container:  cpu 4\n" in out
    code, out, _ = cli(admin, "policy", "set", "-n", "ads", "--kinds", "any", "--max-cpu", "none")
    assert code == 0 and "allowed kinds:      any\n" in out and "max per container:  none\n" in out
    code, out, _ = cli(owns, "policy", "get", "-n", "ads", "-o", "json")
    assert code == 0 and json.loads(out)["imageRegistries"] == ["registry.local"]
    assert json.loads(out)["sidecarExec"] is False
    code, _, err = cli(owns, "policy", "set", "-n", "ads", "--notify-on-shell", "on")
    assert code == 1 and "permission_denied" in err
    code, _, err = cli(admin, "policy", "set", "-n", "ads", "--max-memory", "lots")
    assert code == 1 and "maxPerContainer.memory" in err
    assert cli(owns, "policy", "get", "-n", "ml")[0] == 3  # another tenant's: not found
    assert cli(admin, "policy", "set", "-n", "ads")[0] == 2  # no change given
    code, out, _ = cli(admin, "policy", "set", "--defaults", "--tiers", "OnDemand")
    assert code == 0 and "allowed tiers:      OnDemand\n" in out
    assert cli(owns, "policy", "get", "--defaults")[0] == 1
    assert AuditEvent.objects.filter(action="project.policy.set", project_name="ads").count() == 2
    assert AuditEvent.objects.filter(action="policy.defaults.set").count() == 1
