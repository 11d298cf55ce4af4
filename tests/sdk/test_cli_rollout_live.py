# ruff: noqa: F811 - fixtures imported from other modules are named as parameters
"""``pincompute rollout undo`` and ``describe``'s diagnosis against the real stack (the portal under uvicorn, the
host and member apiservers with kwok, the federation operator): a PinApp edited to a new image is rolled back, and
its pods on the members are replaced by pods of the old revision's spec; the rollback is audited; a revision that
does not exist is refused naming the field; describe says why first."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from accounts.services import create_api_token
from base.models import AuditEvent
from clusters import runtime
from devtools.waiting import wait_for
from pincompute.labels import WORKLOAD_LABEL
from tests.support.journey import project  # noqa: F401 - fixture, used by name
from tests.support.provisioning import eager_tasks, federation, pools, register  # noqa: F401
from tests.support.sdk import SDK_DIR
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads.examples import example

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


def run_cli(url: str, token: str, *argv: str) -> tuple[int, str, str]:
    env = {**os.environ, "PINCONSOLE_URL": url, "PINCONSOLE_TOKEN": token, "PYTHONPATH": str(SDK_DIR)}
    env.pop("PINCONSOLE_CONFIG", None)
    done = subprocess.run(
        [sys.executable, "-m", "pinconsole_sdk.cli", *argv],
        env=env, capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def images(namespace: str, name: str) -> set[str]:
    """The images of the workload's live (not terminating) pods on every member, from the members' caches."""
    return {
        c["image"]
        for cache in runtime.member_caches().values()
        for p in cache.list("pods", namespace, label_selector={WORKLOAD_LABEL: name})
        if not p["metadata"].get("deletionTimestamp")
        for c in p["spec"]["containers"]
        if c["name"] == "web"
    }


def test_rollout_undo_replaces_the_pods_with_the_old_revisions_and_describe_says_why(
    operator, created, project, user, asgi_portal, tmp_path: Path
):
    token = create_api_token(user=user, name="cli-rollout", days=1)[1]
    ns, name = project.namespace, f"undo-{uuid.uuid4().hex[:6]}"
    document: dict[str, Any] = example("PinApp", project=project.name)
    document["metadata"]["name"] = name
    first = next(c for c in document["spec"]["template"]["containers"] if c["name"] == "web")["image"]
    manifest = tmp_path / "app.yaml"
    manifest.write_text(yaml.safe_dump(document, sort_keys=False))
    p = ("-p", project.name)

    def cli(*argv: str) -> tuple[int, str, str]:
        return run_cli(asgi_portal.url, token, *argv)

    assert cli("apply", "-f", str(manifest), *p)[0] == 0
    created.append(("PinApp", ns, name))
    wait_for(lambda: images(ns, name) == {first}, 150, interval=1, what="pods of the first revision")
    second = first + "-next"
    for container in document["spec"]["template"]["containers"]:
        if container["name"] == "web":
            container["image"] = second
    manifest.write_text(yaml.safe_dump(document, sort_keys=False))
    assert cli("apply", "-f", str(manifest), *p) == (0, f"pinapp/{name} configured\n", "")
    wait_for(lambda: images(ns, name) == {second}, 150, interval=1, what="pods of the second revision")

    code, out, err = cli("rollout", "undo", f"pinapp/{name}", *p)

    assert code == 0, err
    said = re.fullmatch(rf"pinapp/{name} rolled back to revision (\d+)\n(.*)", out, re.S)
    assert said is not None, out
    assert f'spec.template.containers[0].image: "{second}" -> "{first}"' in said.group(2)
    wait_for(lambda: images(ns, name) == {first}, 150, interval=1, what="pods replaced by the old revision's")
    row = AuditEvent.objects.get(action="workload.rollback", target_name=name)
    assert row.actor == user and row.summary.startswith(f"rolled back to revision {said.group(1)} ")

    code, out, err = cli("rollout", "undo", f"pinapp/{name}", "--to-revision", "99", *p)
    assert code == 1 and "revision: must be one of the workload's revisions" in err, err

    def described() -> str | None:
        code, out, _ = cli("describe", "pinapp", name, *p)
        return out if code == 0 and out.startswith("State:        Running\n") else None

    out = wait_for(described, 90, interval=1, what="describe saying Running first")
    assert out.splitlines()[1].startswith("Why:          Running: 2 of 2 replicas ready on "), out
    assert out.splitlines()[2] == "Next step:    Nothing to do.", out
