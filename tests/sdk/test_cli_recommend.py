"""``pincompute recommend`` against the real portal (``live_server``) and the session's Prometheus, with a real API
token, for ``web`` (the fake host's; its pods never scraped): the table says plainly there is no recommendation,
``-o json`` prints the API's body, ``workload/NAME`` finds the kind, ``--apply`` with nothing to apply exits 1 and
writes nothing, another tenant's workload is not found, and what is not a workload is a usage error."""

from __future__ import annotations

import io
import json

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from base.models import AuditEvent
from tests.support.factories import workload_cr


@pytest.mark.django_db(transaction=True)
def test_recommend_says_there_is_no_history_yet_and_applies_nothing(
    live_server, web, other_project, developer, usage_metrics, monkeypatch, capsys
):
    web.put(workload_cr("secret-train", project="ml"))
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=developer, name="rec", days=1)[1])

    def cli(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    code, out, _ = cli("recommend", "workload/web", "-n", "ads", "--window", "1h")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:4] == ["CONTAINER", "REQUEST(cpu/mem)", "USE(p90/peak)", "RECOMMENDED"]
    assert lines[1].split() == ["app", "1/1Gi", "-", "-", "-", "-", "none"]
    assert lines[2].startswith("app: No use in this window yet")
    code, out, _ = cli("recommend", "papp/web", "-n", "ads", "-o", "json")
    body = json.loads(out)
    assert code == 0 and (body["window"], body["document"]) == ("7d", None)
    assert body["containers"][0]["recommendation"] is None
    audits = AuditEvent.objects.count()
    code, _, _ = cli("recommend", "workload/web", "-n", "ads", "--apply")  # said on stderr, as apply's refusals
    assert code == 1 and "nothing to apply to pinapp/web" in capsys.readouterr().err
    assert AuditEvent.objects.count() == audits
    assert cli("recommend", "workload/secret-train", "-n", "ml")[0] == 3  # another tenant's: not found
    assert cli("recommend", "pinapp/secret-train", "-n", "ml")[0] == 3
    assert cli("recommend", "workload/absent", "-n", "ads")[0] == 3
    code, _, err = cli("recommend", "pod/web-local-1a-abc", "-n", "ads")
    assert code == 2 and "workload/NAME or KIND/NAME" in err
    assert cli("recommend", "workload/web")[0] == 2  # no project
