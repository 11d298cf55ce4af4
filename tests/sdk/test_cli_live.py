"""The CLI and SDK end to end against the real portal (``live_server``) with a real personal API token, over the
workload API's fake host apiserver (quick, no clusters): apply a multi-document YAML file (created, then unchanged,
then configured), get -o json, scale, describe, delete, a 404 as exit code 3, a refused spec printing its field
path, a stale version as 4. The same against the real stack: ``test_cli_real_stack``; the retries against the real
429 and 503: ``test_sdk_retries``."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pinconsole_sdk import Client, ConflictError
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from tests.support.sdk import SDK_DIR
from tests.support.workloads_api import document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def token(developer) -> str:
    return create_api_token(user=developer, name="cli", days=7)[1]


@pytest.fixture
def cli(live_server, token, monkeypatch):
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", token)

    def run(*argv: str, client: Client | None = None) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = main(list(argv), out=out, err=err, client=client)
        return code, out.getvalue(), err.getvalue()

    return run


def write_docs(tmp_path: Path, *docs: dict[str, Any]) -> str:
    path = tmp_path / "workloads.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return str(path)


def test_a_workload_lifecycle_through_the_cli(web, cli, tmp_path):
    file = write_docs(tmp_path, document("shop"), document("cart", replicas=1))

    assert cli("apply", "-f", file, "-p", "ads") == (0, "pinapp/shop created\npinapp/cart created\n", "")
    assert cli("apply", "-f", file, "-p", "ads")[1] == "pinapp/shop unchanged\npinapp/cart unchanged\n"
    edited = write_docs(tmp_path, document("shop"), document("cart", replicas=2))
    assert cli("apply", "-f", edited, "-p", "ads")[1] == "pinapp/shop unchanged\npinapp/cart configured\n"

    code, out, _ = cli("get", "pinapps", "-p", "ads", "-o", "json")
    assert code == 0
    assert [w["name"] for w in json.loads(out)["items"]] == ["cart", "shop", "waiting", "web"]
    code, out, _ = cli("get", "pinapp", "shop", "-p", "ads", "-o", "json")
    assert json.loads(out)["spec"]["replicas"] == 2 and json.loads(out)["project"] == "ads"

    assert cli("scale", "pinapp", "shop", "--replicas", "3", "-p", "ads") == (0, "pinapp/shop scaled\n", "")
    code, out, _ = cli("-p", "ads", "get", "pinapp", "shop", "-o", "yaml")  # the global option before the command
    assert code == 0 and yaml.safe_load(out)["spec"]["replicas"] == 3
    assert cli("pause", "pinapp", "shop", "-p", "ads")[0] == 0

    code, out, _ = cli("get", "-p", "ads")
    assert code == 0 and out.splitlines()[0].split() == [
        "PROJECT", "KIND", "NAME", "TIER", "STATUS", "READY", "CLUSTERS", "VERSION"
    ]  # fmt: skip
    code, out, _ = cli("describe", "pinapp", "web", "-p", "ads")
    assert code == 0 and "Shards:\n  member-a" in out and "Timeline:" in out and "BackOff" in out

    assert cli("delete", "pinapp", "shop", "-p", "ads") == (0, "pinapp/shop deleted\n", "")
    code, _, err = cli("get", "pinapp", "shop", "-p", "ads")
    assert code == 3 and err.startswith("Error from server (not_found)"), err
    assert cli("delete", "pinapp", "shop", "-p", "ads")[0] == 3


def test_a_refused_spec_prints_the_field_path_and_exits_1(web, cli, tmp_path):
    bad = document("shop")
    bad["spec"]["replicas"] = -1

    code, out, err = cli("apply", "-f", write_docs(tmp_path, bad), "-p", "ads")

    assert code == 1 and out == ""
    assert "spec.replicas" in err, err
    assert cli("get", "pinapp", "shop", "-p", "ads")[0] == 3  # nothing was written


def test_usage_errors_exit_2_and_another_tenants_project_is_3(web, cli, other_project):
    assert cli("get", "pinapp", "web")[0] == 2  # no project
    assert cli("scale", "pinapp", "web", "-p", "ads")[0] == 2  # no --replicas
    assert cli("get", "pinapp", "web", "-p", "ml")[0] == 3
    code, out, _ = cli("completion", "bash")
    assert code == 0 and "complete -F _pincompute pincompute" in out and "pinapps" in out


def test_a_stale_version_is_a_conflict_naming_both_versions(web, live_server, token, cli):
    client = Client(live_server.url, token, env={})
    stale = client.get("ads", "PinApp", "web").version
    client.pause("ads", "PinApp", "web")
    live = client.get("ads", "PinApp", "web").version

    with pytest.raises(ConflictError) as raised:
        client.scale("ads", "PinApp", "web", 3, if_match=stale)

    assert (raised.value.sent_version, raised.value.live_version) == (stale, live)
    assert client.get("ads", "PinApp", "web").spec["replicas"] == 2


def test_the_module_runs_as_a_program(web, live_server, token):
    env = {**os.environ, "PINCONSOLE_URL": live_server.url, "PINCONSOLE_TOKEN": token, "PYTHONPATH": str(SDK_DIR)}
    argv = [sys.executable, "-m", "pinconsole_sdk.cli", "get", "pinapp", "web", "-p", "ads", "-o", "json"]

    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["shards"][0]["cluster"] == "member-a"
    missing = subprocess.run([*argv[:5], "nope", *argv[6:]], env=env, capture_output=True, timeout=60, check=False)
    assert missing.returncode == 3


def test_every_write_with_a_stale_if_match_exits_4_naming_both_versions(web, cli, tmp_path):
    def version() -> str:
        code, out, err = cli("get", "pinapp", "web", "-p", "ads", "-o", "json")
        assert code == 0, err
        return str(json.loads(out)["version"])

    stale = version()
    assert cli("scale", "pinapp", "web", "--replicas", "3", "-p", "ads", "--if-match", stale)[0] == 0
    live = version()
    edited = write_docs(tmp_path, document("web", replicas=1))

    for argv in (
        ["apply", "-f", edited],
        ["scale", "pinapp", "web", "--replicas", "1"],
        ["pause", "pinapp", "web"],
        ["restart", "pinapp", "web"],
        ["restart-container", "pinapp", "web", "-c", "app"],
        ["delete", "pinapp", "web"],
    ):
        code, out, err = cli(*argv, "-p", "ads", "--if-match", stale)
        assert (code, out) == (4, ""), (argv, err)
        assert f"sent version {stale}, live version {live}" in err, (argv, err)
    assert version() == live  # nothing was written

    assert cli("restart-container", "pinapp", "web", "-c", "app", "-p", "ads", "--if-match", live) == (
        0,
        "pinapp/web container app restarted in every pod\n",
        "",
    )
    code, out, err = cli("restart-container", "pinapp", "web", "-c", "side", "--pod", "web-local-1a-abc", "-p", "ads")
    assert (code, out) == (1, "") and "container: must be one of the workload's containers: app" in err, err


def complete(script: str, line: str, env: dict[str, str]) -> list[str]:
    """What a real bash offers for ``line`` (the word being completed is its last, maybe empty) with the
    completion ``script`` loaded: ``complete -p`` names the function, which is run as readline would."""
    words = line.split(" ")
    program = (
        script
        + "\ncomplete -p pincompute || exit 9\n"
        + f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        + f"COMP_LINE={shlex.quote(line)}; COMP_POINT={len(line)}\n"
        + '_pincompute pincompute "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"\n'
        + 'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "complete -F _pincompute pincompute"
    return [w for w in lines[1:] if w]


def test_bash_completion_in_a_real_bash(web, live_server, token, tmp_path):
    bin_dir = tmp_path / "bin"  # `pincompute` on PATH, as the package's console script installs it
    bin_dir.mkdir()
    program = bin_dir / "pincompute"
    program.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m pinconsole_sdk.cli "$@"\n')
    program.chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PYTHONPATH": str(SDK_DIR),
        "PINCONSOLE_URL": live_server.url,
        "PINCONSOLE_TOKEN": token,
        "HOME": str(tmp_path),
    }
    code, script, _ = run_cli("completion", "bash")
    assert code == 0

    assert complete(script, "pincompute ge", env) == ["get"]
    assert sorted(complete(script, "pincompute re", env)) == ["recommend", "restart", "restart-container", "resume"]
    assert complete(script, "pincompute get pina", env) == ["pinapp", "pinapps"]
    assert complete(script, "pincompute get po", env) == ["pods"]
    assert complete(script, "pincompute get pinapp -o y", env) == ["yaml"]
    assert complete(script, "pincompute scale pinapp web --if", env) == ["--if-match"]
    # a workload's name, asked of the portal through the CLI itself (get KIND -p PROJECT -o name)
    assert complete(script, "pincompute -p ads describe pinapp ", env) == ["waiting", "web"]
    assert complete(script, "pincompute get pinapp -p ads we", env) == ["web"]
    assert complete(script, "pincompute delete pinapp -p ml ", env) == []  # another tenant's project: nothing
    assert complete(script, "pincompute get pinapp -p ", env) == []  # a project is not guessed


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()
