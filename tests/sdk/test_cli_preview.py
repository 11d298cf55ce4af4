"""``apply --dry-run`` and ``diff`` through the real portal (``live_server``) over the workload API's fake host (quick,
no clusters): several documents at once, ``-o json``, a document the apply would refuse (exit 1 after every document;
``diff`` exit 2), a bad file (``diff`` exit 3), a bad ``--dry-run`` value, and nothing written. The actions against
the real stack: ``test_cli_preview_real_stack``."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from base.models import AuditEvent
from tests.support.workloads_api import document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cli(live_server, developer, monkeypatch, capsys):
    """``pincompute ARGS`` in this process: (exit code, stdout, stderr as main and the handlers wrote it)."""
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=developer, name="cli", days=7)[1])

    def run(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        capsys.readouterr()
        code = main(list(argv), out=out, err=err)
        return code, out.getvalue(), err.getvalue() + capsys.readouterr().err

    return run


def write(tmp_path: Path, *docs: dict[str, Any]) -> str:
    path = tmp_path / "workloads.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return str(path)


def test_each_document_is_told_and_nothing_is_written(web, cli, tmp_path):
    live = copy.deepcopy(web.objects)
    audited = AuditEvent.objects.count()
    file = write(tmp_path, document("shop"), document("web"))

    code, out, _ = cli("apply", "-f", file, "-p", "ads", "--dry-run=client", "-o", "json")

    assert code == 0
    assert [(p["name"], p["action"]) for p in json.loads(out)["items"]] == [("shop", "created"), ("web", "configured")]
    assert cli("apply", "-f", file, "-p", "ads", "--dry-run", "-o", "name")[1] == "pinapp/shop\npinapp/web\n"
    code, out, _ = cli("diff", "-f", file, "-p", "ads")
    assert code == 1 and out.count("+++ merged/pinapp/ads/") == 2 and "--- live/pinapp/ads/web\n" in out
    assert (web.objects, AuditEvent.objects.count()) == (live, audited)


def test_a_document_the_apply_would_refuse_is_said_after_every_document(web, cli, tmp_path):
    big = document("big", cpu="64")
    file = write(tmp_path, big, document("shop"))

    code, out, err = cli("apply", "-f", file, "-p", "ads", "--dry-run=server")

    assert code == 1 and "pinapp/big created (server dry run)" in out and "pinapp/shop created (server dry run)" in out
    assert "pinapp/big would be refused" in err and "OnDemand.cpu" in err
    assert cli("diff", "-f", file, "-p", "ads")[0] == 2  # refused (1), plus one as kubectl diff


def test_diff_and_dry_run_usage_errors(web, cli, tmp_path):
    (tmp_path / "bad.yaml").write_text("kind: [unclosed\n")

    assert cli("diff", "-f", str(tmp_path / "bad.yaml"), "-p", "ads")[0] == 3  # usage (2), plus one
    assert cli("apply", "-f", write(tmp_path, document("shop")), "--dry-run=maybe")[0] == 2
