# ruff: noqa: F811 - fixtures imported from other conftests are named as parameters
"""``pincompute apply --dry-run=server`` and ``pincompute diff`` as a user runs them against the real stack (the
portal under uvicorn, the registry's host and member apiservers, the federation operator): created before the
workload exists (and nothing written), unchanged once applied, configured for an edit with its change, the diffs and
their exit codes (0 none, 1 some, >1 an error), and a workload kubectl applied on the host, unchanged for the CLI
(kubectl's annotation kept, which only the live object's field ownership tells)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client as k8s

from accounts.services import create_api_token
from clusters import runtime
from devtools.localcp.binaries import default_bin_dir
from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.kinds import MEMBER_CLUSTER
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


@pytest.fixture
def pincompute(asgi_portal, user):
    """``pincompute ARGS``: the CLI as a process with the developer's token: (exit code, stdout, stderr)."""
    token = create_api_token(user=user, name="cli-preview", days=1)[1]
    env = {**os.environ, "PINCONSOLE_URL": asgi_portal.url, "PINCONSOLE_TOKEN": token, "PYTHONPATH": str(SDK_DIR)}
    env.pop("PINCONSOLE_CONFIG", None)

    def run(*argv: str) -> tuple[int, str, str]:
        done = subprocess.run(
            [sys.executable, "-m", "pinconsole_sdk.cli", *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        return done.returncode, done.stdout, done.stderr

    return run


def on_host(api: k8s.ApiClient, namespace: str, name: str) -> dict[str, Any] | None:
    try:
        return k8s.CustomObjectsApi(api).get_namespaced_custom_object(GROUP, VERSION, namespace, "pinapps", name)
    except k8s.ApiException as exc:
        if exc.status == 404:
            return None
        raise


def members_known() -> None:
    """The portal's host cache (started at its first read) holds both MemberCluster objects: placement can be read."""

    def known() -> bool:
        cache = runtime.host_cache()
        if cache is None or not cache.synced:
            return False  # an earlier test of this worker may have registered more clusters: both members suffice
        return {"member-a", "member-b"} <= {o["metadata"]["name"] for o in cache.list(MEMBER_CLUSTER.plural)}

    wait_for(known, 60, interval=0.5, what="the host cache holding both MemberCluster objects")


def test_dry_run_and_diff_tell_created_unchanged_and_configured(
    operator, created, project, pincompute, cluster_api_clients, tmp_path: Path
):
    ns, name = project.namespace, f"prev-{uuid.uuid4().hex[:6]}"
    document: dict[str, Any] = example("PinApp", project=project.name)
    document["metadata"]["name"] = name
    app, edited = tmp_path / "app.yaml", tmp_path / "edited.yaml"
    app.write_text(yaml.safe_dump(document, sort_keys=False))
    document["spec"]["replicas"] = 3
    edited.write_text(yaml.safe_dump(document, sort_keys=False))
    p, host = ("-p", project.name), cluster_api_clients["host"]
    members_known()

    code, out, err = pincompute("apply", "-f", str(app), *p, "--dry-run=server")
    assert code == 0 and err == "", err
    assert out.splitlines()[0] == f"pinapp/{name} created (server dry run)"
    assert f"objects on member-a: Deployment {name}-local-1a" in out and "parts injected" in out
    assert "placement member-a (local-1a): chosen, 1 replica(s) score" in out
    assert "placement member-b (local-1b): chosen" in out
    assert "quota OnDemand fits now: cpu" in out and "granted 8" in out
    assert pincompute("apply", "-f", str(app), *p, "--dry-run")[1].splitlines()[0].endswith("created (server dry run)")
    code, out, err = pincompute("diff", "-f", str(app), *p)
    assert code == 1, err
    assert out.startswith(f"--- /dev/null\n+++ merged/pinapp/{project.name}/{name}\n") and "+kind: PinApp\n" in out
    assert on_host(host, ns, name) is None  # nothing written

    assert pincompute("apply", "-f", str(app), *p) == (0, f"pinapp/{name} created\n", "")
    created.append(("PinApp", ns, name))
    written = on_host(host, ns, name)

    code, out, err = pincompute("apply", "-f", str(app), *p, "--dry-run=server")
    assert (code, out.splitlines()[0]) == (0, f"pinapp/{name} unchanged (server dry run)"), err
    assert pincompute("diff", "-f", str(app), *p) == (0, "", "")
    code, out, err = pincompute("apply", "-f", str(edited), *p, "--dry-run=server")
    assert (code, out.splitlines()[0]) == (0, f"pinapp/{name} configured (server dry run)"), err
    assert "  change spec.replicas: 2 -> 3\n" in out
    code, out, err = pincompute("diff", "-f", str(edited), *p)
    assert code == 1, err
    assert f"--- live/pinapp/{project.name}/{name}\n" in out and "-  replicas: 2\n+  replicas: 3\n" in out
    assert on_host(host, ns, name)["metadata"]["generation"] == written["metadata"]["generation"]

    code, out, err = pincompute("diff", "-f", str(app), "-p", "no-such-project")
    assert (code, out) == (4, "") and "not_found" in err  # not found (3), plus one as kubectl diff


def test_a_workload_kubectl_applied_is_unchanged_for_the_cli(
    operator, created, project, pincompute, cluster_api_clients, local_control_plane, tmp_path: Path
):
    ns, name = project.namespace, f"kube-{uuid.uuid4().hex[:6]}"
    document: dict[str, Any] = example("PinApp", project=project.name)
    document["metadata"].update(name=name, namespace=ns)
    manifest = tmp_path / "app.yaml"
    manifest.write_text(yaml.safe_dump(document, sort_keys=False))
    kubectl = [str(default_bin_dir() / "kubectl"), "--kubeconfig", str(local_control_plane.kubeconfig_path)]
    applied = subprocess.run([*kubectl, "--context", "host", "apply", "-f", str(manifest)], capture_output=True)
    assert applied.returncode == 0, applied.stderr
    created.append(("PinApp", ns, name))

    code, out, err = pincompute("apply", "-f", str(manifest), "-p", project.name, "--dry-run=server")

    assert (code, out.splitlines()[0]) == (0, f"pinapp/{name} unchanged (server dry run)"), (out, err)
    assert pincompute("diff", "-f", str(manifest), "-p", project.name) == (0, "", "")
