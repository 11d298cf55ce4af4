# ruff: noqa: F811 - fixtures imported from other conftests are named as parameters
"""A Secret's value set through the portal reaches a pod on a member and nowhere else: created with ``pincompute``
(a process, as a user runs it), used by a workload as a variable and as a file, copied by the federation operator to
the member where the shard lands, read inside the pod (the local stack's pods get their env and files as a kubelet
gives them), and then every page, API body, audit row, log and shell recording is searched for the value (and its
base64) and holds none of it."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import secrets
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client
from django.urls import reverse

from base.models import AuditEvent
from debugging.models import SessionRecording
from devtools.waiting import wait_for
from projects.lifecycle import set_shell_recording
from tests.support.cli_process import cli_command, cli_environment, running_pods
from tests.support.journey import project  # noqa: F401 - fixture, used by name
from tests.support.provisioning import eager_tasks, federation, pools, register  # noqa: F401
from tests.support.sdk import asgi_portal  # noqa: F401 - fixture, used by name
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads.examples import example

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


@pytest.fixture
def pincompute(asgi_portal, user):
    return cli_command(cli_environment(asgi_portal.url, user))


def _workload(project_name: str, name: str) -> dict[str, Any]:
    document: dict[str, Any] = example("PinApp", project=project_name)
    document["metadata"]["name"] = name
    document["spec"]["replicas"] = 1
    template = document["spec"]["template"]
    container = template["containers"][0]
    container["env"] = [{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}]
    container["volumeMounts"] = [{"name": "db", "mountPath": "/etc/db", "readOnly": True}]
    template["volumes"] = [{"name": "db", "secret": {"secretName": "db"}}]
    return document


def _everything_shown(admin, user, project, name: str) -> str:
    """Every page and API body a person could open about the project, its Secret and its workload."""
    text = []
    for who in (user, admin):
        http = Client()
        http.force_login(who)
        urls = [
            reverse("projects:detail", kwargs={"name": project.name}),
            reverse("configs:list", kwargs={"name": project.name, "plural": "secrets"}),
            reverse("configs:edit", kwargs={"name": project.name, "plural": "secrets", "obj": "db"}),
            reverse("workloads:detail", kwargs={"project": project.name, "kind": "PinApp", "name": name}),
            reverse("workloads:spec", kwargs={"project": project.name, "kind": "PinApp", "name": name}),
            reverse("audit:list"),
            f"/api/v1/projects/{project.name}/secrets/",
            f"/api/v1/projects/{project.name}/secrets/db/",
            f"/api/v1/projects/{project.name}/workloads/PinApp/{name}/",
            f"/api/v1/projects/{project.name}/timeline/",
            "/api/v1/audit/",
        ]
        for url in urls:
            answer = http.get(url)
            assert answer.status_code in (200, 403), (url, answer.status_code)
            text.append(answer.content.decode(errors="replace"))
        preview = http.post(
            f"/api/v1/projects/{project.name}/workloads/preview/",
            json.dumps(_workload(project.name, name)),
            content_type="application/json",
        )
        text.append(preview.content.decode(errors="replace"))
    return "\n".join(text)


def test_a_secret_set_in_the_portal_reaches_the_pod_and_appears_nowhere_else(
    operator, created, project, user, admin_user, pincompute, local_control_plane, caplog, tmp_path: Path
):
    caplog.set_level(logging.DEBUG)
    value = f"v-{secrets.token_hex(12)}"
    hidden = (value, base64.b64encode(value.encode()).decode())
    digest = hashlib.sha256(value.encode()).hexdigest()
    ns, name, p = project.namespace, f"sec-{uuid.uuid4().hex[:6]}", ("-n", project.name)
    manifest = tmp_path / "app.yaml"
    manifest.write_text(yaml.safe_dump(_workload(project.name, name), sort_keys=False))
    said: list[str] = []

    def run(*argv: str) -> str:
        code, out, err = pincompute(*argv)
        said.extend((out, err))
        assert code == 0, (argv, out, err)
        return out

    set_shell_recording(project, True, actor=admin_user)  # the shell below is recorded, so its cast is searched too
    run("create", "secret", "db", *p, "--from-literal", f"password={value}")
    run("apply", "-f", str(manifest), *p)
    created.append(("PinApp", ns, name))
    placed = wait_for(lambda: [(m, ps) for m, ps in running_pods(ns, name).items() if ps] or None, 120,
                      what="the pod Running on a member")  # fmt: skip
    member, pods = placed[0]
    read = 'printf %s "$DB_PASSWORD" | sha256sum; sha256sum < /etc/db/password'
    out = wait_for(
        lambda: (o := pincompute("exec", pods[0], *p, "--cluster", member, "--", "sh", "-c", read))[0] == 0 and o,
        60,
        what="the pod's shell",
    )
    said.extend(out[1:])

    assert out[1].split() == [digest, "-", digest, "-"], out  # the variable and the file hold the value
    assert "db" in run("get", "secrets", *p)
    shown = _everything_shown(admin_user, user, project, name)
    audit = json.dumps(list(AuditEvent.objects.values()), default=str)
    recordings = "\n".join(SessionRecording.objects.values_list("cast", flat=True))
    logs = "\n".join(
        path.read_text(errors="replace")
        for path in Path(local_control_plane.state_dir).rglob("*.log")
        if path.is_file()
    )
    places = {
        "pages and API bodies": shown,
        "audit rows": audit,
        "shell recordings": recordings,
        "the CLI's output": "\n".join(said),
        "the portal's log": caplog.text,
        "the operator's log": operator.log_path.read_text(errors="replace"),
        "the clusters' logs": logs,
    }
    assert AuditEvent.objects.filter(action="secret.create", project_name=project.name).exists()
    assert digest in recordings  # the shell's output was recorded (only the digest of the value)
    for where, text in places.items():
        assert text, where
        for secret_text in hidden:
            assert secret_text not in text, f"the Secret's value is in {where}"
