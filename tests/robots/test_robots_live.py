"""A deploy from a robot token against the real host apiserver, as CI runs it: an owner creates the robot with
the CLI (its token printed once), CI saves the token in a file, ``pincompute login --token-file`` and ``apply``: the
PinApp is on the host and the audit names the robot. Its token reaches no other project (exit 3, the API's 404), and
after the owner revokes it the next apply is refused (401) and writes nothing."""

from __future__ import annotations

import io
import uuid

import pytest
import yaml
from pinconsole_sdk.cli import main
from rest_framework.test import APIClient

from accounts.services import create_api_token
from base.models import AuditEvent
from tests.support.provisioning import eager_tasks, federation, onboard, pools, register  # noqa: F401
from tests.support.submission import on_host, pinapp

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
GRANTS = {"ondemand": ("4", "8Gi", "0", "0")}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


@pytest.fixture
def projects(admin_user, user, other_user):
    suffix = uuid.uuid4().hex[:6]
    payments = onboard(f"pay-{suffix}", admin_user, members=[("user", user.username, "owner")], grants=GRANTS)
    other = onboard(f"oth-{suffix}", admin_user, members=[("user", other_user.username, "owner")], grants=GRANTS)
    return payments, other


def test_a_robot_deploys_through_the_cli_and_dies_outside_its_project_and_after_revocation(
    live_server, projects, user, cluster_api_clients, tmp_path, monkeypatch
):
    payments, other = projects
    owner_token = create_api_token(user=user, name="owner-cli", days=1)[1]
    monkeypatch.delenv("PINCONSOLE_TOKEN", raising=False)
    monkeypatch.setenv("PINCONSOLE_CONFIG", str(tmp_path / "config.toml"))
    as_owner = ("--url", live_server.url, "--token", owner_token, "-p", payments.name)

    code, out, err = run("robots", "create", "deploy-bot", "--scopes", "read,write", "--days", "2", *as_owner)
    assert code == 0, err
    secret = out.splitlines()[1]
    token_file = tmp_path / "robot-token"
    token_file.write_text(secret + "\n")
    code, out, err = run("login", "--url", live_server.url, "--token-file", str(token_file))
    assert code == 0, err
    assert secret in (tmp_path / "config.toml").read_text()

    app = tmp_path / "app.yaml"
    app.write_text(yaml.safe_dump(pinapp()))
    assert run("apply", "-f", str(app), "-p", payments.name) == (0, "pinapp/web created\n", "")

    live = on_host(cluster_api_clients["host"], payments)
    assert live["spec"]["project"] == payments.name
    row = AuditEvent.objects.get(action="workload.create", project_name=payments.name)
    assert row.actor_name == f"robot deploy-bot of {payments.name}"

    code, _, err = run("apply", "-f", str(app), "-p", other.name)
    assert code == 3, err  # another project: not found, as another tenant's project is
    robot_api = APIClient()
    robot_api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert robot_api.post(f"/api/v1/projects/{other.name}/workloads/", pinapp(), format="json").status_code == 404
    assert on_host(cluster_api_clients["host"], other) is None

    code, out, err = run("robots", "revoke", "deploy-bot", *as_owner)
    assert (code, out) == (0, "robot/deploy-bot revoked\n"), err
    app.write_text(yaml.safe_dump(pinapp(name="web-2")))
    code, _, err = run("apply", "-f", str(app), "-p", payments.name)
    assert code == 1 and "revoked" in err, err
    assert on_host(cluster_api_clients["host"], payments, name="web-2") is None
    assert robot_api.get(f"/api/v1/projects/{payments.name}/workloads/").status_code == 401
    code, out, _ = run("robots", "list", *as_owner)
    assert code == 0 and "revoked" in out.splitlines()[1]
