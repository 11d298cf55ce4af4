"""``pincompute owners`` against the real portal (``live_server``) with real API tokens: an owner sets the on-call
contact and the links (audited), a viewer reads and is refused a change (403, exit code 1), a bad link is named by
its field, and another tenant's project is not found."""

from __future__ import annotations

import io
import json

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from base.models import AuditEvent


@pytest.mark.django_db(transaction=True)
def test_an_owner_sets_ownership_and_a_viewer_only_reads(
    live_server, project, other_project, owner, viewer, monkeypatch
):
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)

    def cli(token: str, *argv: str) -> tuple[int, str, str]:
        monkeypatch.setenv("PINCONSOLE_TOKEN", token)
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    owns = create_api_token(user=owner, name="own", days=1)[1]
    views = create_api_token(user=viewer, name="view", days=1)[1]

    code, out, err = cli(
        owns, "owners", "set", "--oncall", "#ads-oncall", "--link", "runbook", "Runbook", "https://wiki.example.com/ads",
        "-n", "ads",
    )  # fmt: skip
    assert (code, err) == (0, ""), err
    assert "on call: #ads-oncall\n" in out and "  runbook  Runbook  https://wiki.example.com/ads\n" in out
    code, out, _ = cli(views, "owners", "get", "-n", "ads", "-o", "json")
    assert code == 0 and json.loads(out) == {
        "team": "ads",
        "oncall": "#ads-oncall",
        "links": [{"kind": "runbook", "title": "Runbook", "url": "https://wiki.example.com/ads"}],
    }
    code, _, err = cli(views, "owners", "set", "--oncall", "@me", "-n", "ads")
    assert code == 1 and "permission_denied" in err
    code, _, err = cli(owns, "owners", "set", "--link", "wiki", "Wiki", "ftp://wiki", "-n", "ads")
    assert code == 1 and "links[0].kind" in err and "links[0].url" in err
    assert cli(owns, "owners", "set", "-n", "ads")[0] == 2  # nothing to set
    assert cli(owns, "owners", "get", "-n", "ml")[0] == 3  # another tenant's: not found
    code, out, _ = cli(owns, "owners", "set", "--no-links", "--team", "ads-infra", "-n", "ads")
    assert code == 0 and "team:    ads-infra\n" in out and "links:   (none)\n" in out
    assert AuditEvent.objects.filter(action="project.ownership.set", project_name="ads").count() == 2
