"""A project's Secrets and ConfigMaps against the real host apiserver, through the service, the API, the pages and
the CLI: what lands on the host, who may read and write what, refusals that name the field and write nothing, and a
Secret's value never in an answer or an audit row."""

from __future__ import annotations

# isort: off
import tests.support.sdk  # noqa: F401 - first: the SDK's own directory on sys.path, for pinconsole_sdk
# isort: on

import base64
import io
import json
import logging
import secrets
import uuid

import pytest
from kubernetes import client
from pinconsole_sdk.cli import main
from rest_framework.test import APIClient

from accounts.services import create_api_token
from base.errors import Conflict, Forbidden, Invalid, NotFound
from base.models import AuditEvent
from configs import services
from pincompute.configs import DATA_MAX_BYTES
from tests.support.provisioning import onboard

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "federation"),
]
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def project(admin_user, user, other_user):
    """``user`` a developer, ``other_user`` a viewer."""
    return onboard(
        f"cfg-{uuid.uuid4().hex[:6]}",
        admin_user,
        members=[
            ("user", admin_user.username, "owner"),
            ("user", user.username, "developer"),
            ("user", other_user.username, "viewer"),
        ],
    )


def host_secret(cluster_api_clients, project, name):
    try:
        return client.CoreV1Api(cluster_api_clients["host"]).read_namespaced_secret(name, project.namespace)
    except client.ApiException as exc:
        if exc.status == 404:
            return None
        raise


def audit_text() -> str:
    return json.dumps(list(AuditEvent.objects.values("before", "after", "summary")))


def test_a_secret_is_kept_on_the_host_its_value_written_once_and_audited_by_keys(
    project, user, other_user, cluster_api_clients
):
    value = secrets.token_hex(16)

    services.create_config(project, "Secret", "db", {"password": value, "empty": ""}, actor=user)

    held = host_secret(cluster_api_clients, project, "db")
    assert base64.b64decode(held.data["password"]).decode() == value
    assert held.metadata.annotations["pincompute.io/changed-by"] == user.username
    shown = services.get_config(project, "Secret", "db", actor=user)
    assert [(k.name, k.set) for k in shown.keys] == [("empty", False), ("password", True)] and shown.version == 1
    version = services.update_config(project, "Secret", "db", {"user": "app"}, remove=["empty"], version=1, actor=user)
    assert version == 2 and sorted(host_secret(cluster_api_clients, project, "db").data) == ["password", "user"]
    with pytest.raises(Conflict):
        services.update_config(project, "Secret", "db", {"user": "x"}, version=1, actor=user)
    listing = services.list_configs(project, "Secret", actor=other_user)
    assert not listing.details and [i.name for i in listing.items] == ["db"]
    rows = list(AuditEvent.objects.filter(target_kind="Secret").order_by("pk").values_list("action", "after"))
    assert [a for a, _ in rows] == ["secret.create", "secret.update"]
    assert rows[0][1] == {"keys": ["empty", "password"], "version": 1}
    assert value not in audit_text()

    services.delete_config(project, "Secret", "db", actor=user)
    assert host_secret(cluster_api_clients, project, "db") is None
    assert AuditEvent.objects.filter(action="secret.delete", target_name="db").exists()


@pytest.mark.parametrize(
    ("name", "data", "path"),
    [
        ("Bad_Name", {"k": "v"}, "name"),
        ("ok", {"bad key!": "v"}, "data.bad key!"),
        ("ok", {"big": "x" * (DATA_MAX_BYTES + 1)}, "data"),
    ],
)
def test_a_bad_name_key_or_size_is_refused_naming_the_field_and_writes_nothing(
    project, user, cluster_api_clients, name, data, path
):
    with pytest.raises(Invalid) as refused:
        services.create_config(project, "Secret", name, data, actor=user)

    assert path in {f.path for f in refused.value.fields}
    assert host_secret(cluster_api_clients, project, "ok") is None
    assert not AuditEvent.objects.filter(target_kind="Secret").exists()


def test_viewers_write_nothing_and_read_no_secret_keys_and_strangers_see_no_project(
    project, other_user, django_user_model
):
    with pytest.raises(Forbidden):
        services.create_config(project, "Secret", "db", {"k": "v"}, actor=other_user)
    with pytest.raises(Forbidden):
        services.get_config(project, "Secret", "db", actor=other_user)
    stranger = django_user_model.objects.create_user("stranger")
    with pytest.raises(NotFound):
        services.list_configs(project, "ConfigMap", actor=stranger)


def test_the_api_creates_edits_lists_and_deletes_and_never_answers_a_secret_value(project, user, other_user, caplog):
    caplog.set_level(logging.DEBUG)
    api, value = APIClient(), secrets.token_hex(16)
    api.force_authenticate(user)
    base = f"/api/v1/projects/{project.name}/secrets/"

    created = api.post(base, {"name": "db", "data": {"password": value}}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["keys"] == [{"name": "password", "set": True}] and created.json()["version"] == 1
    edited = api.put(f"{base}db/", {"data": {"user": "app"}, "version": 1}, format="json")
    assert edited.status_code == 200 and edited.json()["version"] == 2
    bodies = [created, edited, api.get(base), api.get(f"{base}db/")]
    bad = api.post(base, {"name": "x", "data": {"a/b": "v"}}, format="json")
    assert bad.status_code == 400 and "data.a/b" in bad.content.decode()
    api.force_authenticate(other_user)
    assert api.get(base).json() == [{"name": "db"}]
    assert api.get(f"{base}db/").status_code == 403
    assert api.put(f"{base}db/", {"data": {"x": "y"}}, format="json").status_code == 403
    cm = f"/api/v1/projects/{project.name}/configmaps/"
    api.force_authenticate(user)
    assert api.post(cm, {"name": "settings", "data": {"mode": "fast"}}, format="json").status_code == 201
    api.force_authenticate(other_user)
    assert api.get(f"{cm}settings/").json()["data"] == {"mode": "fast"}  # a ConfigMap reads whole, as in Kubernetes
    api.force_authenticate(user)
    assert api.delete(f"{base}db/").status_code == 204
    assert api.get(f"{base}db/").status_code == 404
    assert all(value not in b.content.decode() for b in bodies)
    assert value not in caplog.text and value not in audit_text()


def test_the_pages_create_edit_and_delete_without_showing_a_secret_value(project, user, other_user, client):
    value = secrets.token_hex(16)
    client.force_login(user)
    url = f"/projects/{project.name}/secrets/"
    assert f'href="{url}"' in client.get(f"/projects/{project.name}/").content.decode()  # found from the project

    created = client.post(url, {"name": "db", "data": f"password={value}\n"}, **HX)
    assert created.status_code == 200 and "password: set" in created.content.decode()
    refused = client.post(url, {"name": "Bad_Name", "data": "k=v"}, **HX)
    assert refused.status_code == 400 and "subdomain" in refused.content.decode().lower()
    edit = client.get(f"{url}db/")
    assert 'name="version" value="1"' in edit.content.decode()
    saved = client.post(f"{url}db/", {"data": "user=app", "version": "1", "remove": ["password"]}, **HX)
    assert saved.status_code == 200 and "version 2" in saved.content.decode()
    pages = [created, edit, saved, client.get(url)]
    client.force_login(other_user)
    assert "db" in client.get(url).content.decode() and "user: set" not in client.get(url).content.decode()
    assert client.post(url, {"name": "x", "data": "k=v"}, **HX).status_code == 403
    client.force_login(user)
    assert client.post(f"{url}db/delete/").status_code == 302
    assert services.list_configs(project, "Secret", actor=user).items == []
    assert all(value not in p.content.decode() for p in pages)


def test_the_cli_creates_lists_and_deletes_a_secret(project, user, live_server, monkeypatch, tmp_path):
    value = secrets.token_hex(16)
    (tmp_path / "app.conf").write_text("mode=fast\n")
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=user, name="cli", days=1)[1])

    def cli(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        return main([*argv, "-n", project.name], out=out, err=err), out.getvalue(), err.getvalue()

    created = cli(
        "create", "secret", "db", "--from-literal", f"password={value}", "--from-file", str(tmp_path / "app.conf")
    )
    assert created[0] == 0 and "keys: app.conf, password" in created[1]
    listed = cli("get", "secrets")
    assert listed[0] == 0 and "password(set)" in listed[1] and value not in listed[1]
    as_json = cli("get", "secret/db", "-o", "json")
    assert json.loads(as_json[1])[0]["version"] == 1 and value not in as_json[1]
    assert cli("create", "secret", "db", "--from-literal", "a=b")[0] == 4  # taken: a conflict
    assert cli("delete", "secret", "db") == (0, "secret/db deleted\n", "")
    assert cli("get", "secrets")[1].count("\n") == 1  # the header alone
