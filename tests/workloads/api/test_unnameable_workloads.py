"""A name no Kubernetes object can have (``%``, upper case, over 253 characters, a final newline) names no
workload: every read, operation and delete of it is the missing workload's 404, in the API and on the pages,
and the host's apiserver is never asked (it would answer ``(400) Name parameter invalid``, which used to be a
500). The fake host below answers such a name as the real host module did, through ``host._mapped``."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from kubernetes.client.exceptions import ApiException

from base.models import AuditEvent
from tests.support.api_host import client_for
from workloads import host

pytestmark = pytest.mark.django_db
PROJECT = "/api/v1/projects/ads/workloads/PinApp"
PAGES = "/workloads/ads/PinApp"
# what the apiserver takes in a path (apimachinery's IsDNS1123Subdomain)
APISERVER_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
UNNAMEABLE = ["%", "Web", "web_1", "-web", "web.", "a" * 254, "web\n", "web%2F..", " web"]


def refused_by_apiserver(name: str, what: str) -> Exception:
    """What the real host module makes of the apiserver's answer to an invalid name in the path."""
    exc = ApiException(status=400, reason="Bad Request")
    exc.body = (
        '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"BadRequest","code":400,'
        f'"message":"Name parameter invalid: \\"{name}\\": may not contain \'%\'"}}'
    )
    mapped = host._mapped(exc, what)
    assert mapped is not None
    return mapped


@pytest.fixture
def asked(web, monkeypatch) -> list[str]:
    """The names the fake host was asked about; an unnameable one is refused as the real apiserver does."""
    names: list[str] = []

    def asking(call: Any, what: str) -> Any:
        def ask(kind: str, namespace: str, name: str, *args: Any, **kwargs: Any) -> Any:
            names.append(name)
            if len(name) > 253 or not APISERVER_NAME.fullmatch(name):
                raise refused_by_apiserver(name, f"{what} {kind}/{name}")
            return call(kind, namespace, name, *args, **kwargs)

        return ask

    for method, what in (("get", "read"), ("patch", "update"), ("delete", "delete")):
        monkeypatch.setattr(f"workloads.host.{method}", asking(getattr(web, method), what))
    return names


def requests(client: Any, url: str) -> dict[str, Any]:
    return {
        "get": client.get(url),
        "timeline": client.get(f"{url}timeline/"),
        "delete": client.delete(url),
        "patch": client.patch(url, {"spec": {"replicas": 1}}, format="json"),
        "pause": client.post(f"{url}pause/"),
        "scale": client.post(f"{url}scale/", {"replicas": 1}, format="json"),
        "restart-container": client.post(f"{url}restart-container/", {"container": "app"}, format="json"),
    }


@pytest.mark.parametrize("name", UNNAMEABLE)
def test_every_read_operation_and_delete_of_an_unnameable_workload_is_404(asked, developer, name):
    client = client_for(developer)

    answers = requests(client, f"{PROJECT}/{quote(name, safe='')}/")

    for what, response in answers.items():
        body = response.json()
        assert response.status_code == 404, (what, body)
        assert body["error"]["code"] == "not_found" and "No PinApp named" in body["error"]["message"], what
    assert asked == [] and not AuditEvent.objects.filter(action__startswith="workload.").exists()


def test_put_of_an_unnameable_workload_is_a_400_naming_the_name(asked, developer):
    response = client_for(developer).put(f"{PROJECT}/%25/", {"spec": {"replicas": 1}}, format="json")

    assert response.status_code == 400, response.json()
    assert "metadata.name" in {f["path"] for f in response.json()["error"]["fields"]}


def test_the_longest_valid_name_is_still_looked_up(asked, developer):
    name = ".".join(["a" * 63] * 4)[:253]

    response = client_for(developer).get(f"{PROJECT}/{name}/")

    assert response.status_code == 404 and asked == [name]  # asked, and absent


@pytest.mark.parametrize("name", ["%", "Web", "a" * 254])
def test_the_pages_of_an_unnameable_workload_are_404(asked, developer, client, name):
    client.force_login(developer)
    url = f"{PAGES}/{quote(name, safe='')}/"

    for page in (url, f"{url}spec/", f"{url}timeline/", f"{url}status/", f"{url}revisions/"):
        assert client.get(page).status_code == 404, page
    assert client.post(f"{url}operate/pause/").status_code == 404
    assert client.post(f"{url}delete/").status_code == 404
    assert asked == []
