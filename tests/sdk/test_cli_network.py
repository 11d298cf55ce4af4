"""``pincompute network`` against the real portal (``live_server``) with real API tokens: an owner opens and closes
ports (audited, shown as the policies' lines), a developer reads and is refused a change (403, exit code 1), a bad
port is a usage error and another tenant's project is not found."""

from __future__ import annotations

import io
import json

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from base.models import AuditEvent
from projects.members import MemberInput, set_member


@pytest.mark.django_db(transaction=True)
def test_an_owner_opens_and_closes_ports_and_a_developer_only_reads(
    live_server, project, other_project, owner, developer, other_user, monkeypatch
):
    set_member(other_project, MemberInput("user", owner.username, "viewer"), actor=other_user)
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)

    def cli(token: str, *argv: str) -> tuple[int, str, str]:
        monkeypatch.setenv("PINCONSOLE_TOKEN", token)
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    owns = create_api_token(user=owner, name="own", days=1)[1]
    develops = create_api_token(user=developer, name="dev", days=1)[1]

    code, out, err = cli(owns, "network", "open", "8443", "--from-project", "ml", "--ingress", "-n", "ads")
    assert (code, err) == (0, ""), err
    assert "  admits TCP 8443 from proj-ml, the ingress\n" in out and "  TCP 8443 from ml, ingress\n" in out
    code, out, _ = cli(develops, "network", "-n", "ads", "-o", "json")
    assert code == 0 and json.loads(out)["openings"] == [
        {"port": 8443, "protocol": "TCP", "projects": ["ml"], "ingress": True}
    ]
    code, _, err = cli(develops, "network", "close", "8443", "-n", "ads")
    assert code == 1 and "permission_denied" in err
    code, _, err = cli(owns, "network", "open", "80", "--from-project", "nope", "-n", "ads")
    assert code == 1 and "openings[1].projects" in err and "'nope'" in err
    assert cli(owns, "network", "open", "70000", "--ingress", "-n", "ads")[0] == 2
    assert cli(owns, "network", "open", "80", "-n", "ads")[0] == 2  # from nobody
    assert cli(owns, "network", "-n", "ml")[0] == 0  # a viewer there reads
    assert cli(develops, "network", "-n", "ml")[0] == 3  # another tenant's: not found
    code, out, _ = cli(owns, "network", "close", "8443", "-n", "ads")
    assert code == 0 and "no openings\n" in out
    assert AuditEvent.objects.filter(action="project.network.set", project_name="ads").count() == 2
