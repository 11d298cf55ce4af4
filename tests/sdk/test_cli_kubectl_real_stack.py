# ruff: noqa: F811 - fixtures imported from other modules are named as parameters
"""The CLI's kubectl habits against the real stack (the portal's ASGI app under uvicorn, the registry's host and
member apiservers with kwok, the federation operator), the CLI run as its own process: ``apply -f DIR`` and
``-f -``, ``KIND/NAME`` and short names, ``-n``, ``-l``, ``-o wide|name|jsonpath``, ``-A`` over two projects of
the developer (another tenant's workloads never shown), ``-w`` printing a scale until Ctrl-C, ``logs workload/NAME``
with a line from each member's pod, ``exec`` without ``--cluster``, and ``version``."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from devtools.waiting import wait_for
from tests.support.cli_process import cli_command, cli_environment, running_pods
from tests.support.journey import project  # noqa: F401 - fixture, used by name
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads.examples import example

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]

GRANTS = {"ondemand": ("8", "16Gi", "0", "0")}


def manifest(project: str, name: str, **labels: str) -> dict[str, Any]:
    document: dict[str, Any] = example("PinApp", project=project)
    document["metadata"]["name"] = name
    document["metadata"]["labels"] = labels
    return document


def test_the_kubectl_style_commands_on_the_real_stack(
    operator, created, project, asgi_portal, admin_user, user, other_user, tmp_path: Path
):
    second = team_project("second", admin_user, user, grants=GRANTS)
    theirs = team_project("theirs", admin_user, other_user, grants=GRANTS)
    cli = cli_command(cli_environment(asgi_portal.url, user))
    suffix = uuid.uuid4().hex[:5]
    web, api, other, hidden = f"web-{suffix}", f"api-{suffix}", f"two-{suffix}", f"hidden-{suffix}"
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "1-web.yaml").write_text(yaml.safe_dump(manifest(project.name, web, app="shop", tier="front")))
    (folder / "2-api.json").write_text(json.dumps(manifest(project.name, api, app="api")))
    (folder / "README.md").write_text("not a manifest")
    n = ("-n", project.name)

    # apply -f DIR (its .yaml and .json files, in order), -f - into a second project, another tenant's own
    assert cli("apply", "-f", str(folder), *n) == (0, f"pinapp/{web} created\npinapp/{api} created\n", "")
    created += [("PinApp", project.namespace, web), ("PinApp", project.namespace, api)]
    assert (
        cli("apply", "-f", "-", "--namespace", second.name, stdin=yaml.safe_dump(manifest(second.name, other)))[0] == 0
    )
    created.append(("PinApp", second.namespace, other))
    stranger = cli_command(cli_environment(asgi_portal.url, other_user))
    assert stranger("apply", "-f", "-", "-n", theirs.name, stdin=yaml.safe_dump(manifest(theirs.name, hidden)))[0] == 0
    created.append(("PinApp", theirs.namespace, hidden))

    def state() -> str:
        code, out, err = cli("get", f"papp/{web}", *n, "-o", "jsonpath={.status.state} {.status.ready}")
        assert code == 0, err
        return out.strip()

    wait_for(
        lambda: state() == "running 2" and all(running_pods(project.namespace, web).values()),
        150,
        interval=1,
        what=f"{web} running with a pod on each member",
    )

    # -l, -o name, -o wide, short names and KIND/NAME
    assert cli("get", "papp", *n, "-l", "app=shop", "-o", "name") == (0, f"pinapp/{web}\n", "")
    assert cli("get", "pinapps", *n, "-l", "app in (shop,api),tier!=front", "-o", "name")[1] == f"pinapp/{api}\n"
    code, out, err = cli("get", "papp", *n, "-l", "app in ()")
    assert code == 1 and "labelSelector" in err, err
    code, wide, _ = cli("get", "apps", web, *n, "-o", "wide")
    assert code == 0 and wide.split("\n")[0].split()[-3:] == ["ADMISSION", "REASON", "CREATED"]
    assert wide.split("\n")[1].split()[:3] == [project.name, "PinApp", web]

    # -A: the developer's two projects, never another tenant's
    code, out, _ = cli("get", "papp", "-A", "-o", "jsonpath={range .items[*]}{.project}/{.name} {end}")
    listed = set(out.split())
    assert code == 0 and {f"{project.name}/{web}", f"{project.name}/{api}", f"{second.name}/{other}"} <= listed
    assert not any(hidden in row or theirs.name in row for row in listed), listed
    code, out, _ = cli("get", "pods", "-A")
    assert code == 0 and {row.split()[0] for row in out.splitlines()[1:]} <= {project.name, second.name}

    # logs of the whole workload: a line from each member's pod, each prefixed [pod/POD/CONTAINER]
    pods = running_pods(project.namespace, web)
    code, out, err = cli("logs", f"workload/{web}", *n, "--tail", "2")
    prefixes = {line.split("]")[0] + "]" for line in out.splitlines()}
    assert code == 0 and prefixes == {f"[pod/{p}/web]" for names in pods.values() for p in names}, (out, err)
    assert cli("logs", f"papp/{web}", *n, "--tail", "1", "-c", "web")[0] == 0

    # exec without --cluster: the pod's name is unique across the members
    target = next(names[0] for names in pods.values() if names)
    assert cli("exec", target, *n, "--", "echo", "hello") == (0, "hello\n", "")
    code, out, _ = cli("logs", f"pod/{target}", *n, "--tail", "1")
    assert code == 0 and len(out.splitlines()) <= 1

    # version: the client's and the server's
    assert cli("version") == (0, "Client Version: 0.1.0\nServer Version: 0.1.0 (API v1)\n", "")

    # -w: the list, then the scale's change, until Ctrl-C (130)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "pinconsole_sdk.cli", "get", f"pinapp/{web}", *n, "-w"],
        env=cli_environment(asgi_portal.url, user),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout or []], daemon=True).start()
    seen: list[str] = []

    def printed(text: str) -> bool:
        while not lines.empty():
            seen.append(lines.get())
        return any(text in line for line in seen)

    try:
        wait_for(lambda: printed(f"{web}   OnDemand"), 60, interval=0.5, what="the watch's first row")
        assert cli("scale", f"papp/{web}", "--replicas", "4", *n) == (0, f"pinapp/{web} scaled\n", "")
        wait_for(lambda: printed("/4"), 90, interval=0.5, what="the watch's row of the scale")
    finally:
        watcher.send_signal(signal.SIGINT)
        code = watcher.wait(timeout=30)
    assert code == 130 and seen[0].split()[:3] == ["PROJECT", "KIND", "NAME"], seen

    assert cli("delete", f"papp/{web}", f"pinapp/{api}", *n) == (0, f"pinapp/{web} deleted\npinapp/{api} deleted\n", "")
