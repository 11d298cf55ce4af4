"""Numbers ``str.isdigit`` accepts but ``int`` refuses (``²``, over 4,300 digits) on the catalog pages: a CronJob
schedule or a rollout percentage is named beside the document (sync shows it, preview and create are a 400), a list
item index is ignored, and a form's whole-number field keeps what was typed for validation to name; never a 500."""

from __future__ import annotations

import html

import pytest
import yaml

from pincompute.specs.schema import Int
from tests.support.kinds import *  # noqa: F403
from tests.support.kinds import (
    host,  # noqa: F401
    posted,
)
from workloads.forms import parse_value

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
NINES = "9" * 5000


def text(response) -> str:
    return html.unescape(response.content.decode())


def quiet(client):
    client.raise_request_exception = False  # a 500 is an answer to assert on, not an exception
    return client


def short(value: str) -> str:
    return value if len(value) < 30 else f"{value[:8]}...({len(value)} chars)"


def edited(client, plural: str, change) -> dict[str, str]:
    data = posted(text(client.get(f"/workloads/catalog/{plural}/")), source="yaml")
    document = yaml.safe_load(data["document"])
    change(document)
    data["document"] = yaml.safe_dump(document, sort_keys=False)
    data["project"] = "ads"
    return data


def answers(client, plural: str, data: dict[str, str]) -> dict[str, tuple[int, str]]:
    url = f"/workloads/catalog/{plural}/"
    return {
        action: (response.status_code, text(response))
        for action in ("sync/", "preview/", "create/")
        for response in [client.post(f"{url}{action}", data, **HX)]
    }


@pytest.mark.parametrize(
    "schedule", ["² * * * *", "*/² * * * *", "1-² * * * *", f"{NINES} * * * *", f"*/{NINES} * * * *"], ids=short
)
def test_a_cron_schedule_int_cannot_read_is_named_on_every_action(host, developer, client, schedule):  # noqa: F811
    client.force_login(developer)
    data = edited(quiet(client), "pinterestcronjobs", lambda d: d["spec"].update(schedule=schedule))

    found = answers(client, "pinterestcronjobs", data)

    assert found["sync/"][0] == 200 and "is not a valid cron schedule" in found["sync/"][1]
    for action in ("preview/", "create/"):
        status, page = found[action]
        assert status == 400 and "is not a valid cron schedule" in page, (action, status)
    assert not host


@pytest.mark.parametrize("percent", ["²%", f"{'9' * 4400}%"], ids=short)
def test_a_rollout_percentage_int_cannot_read_is_named_on_every_action(host, developer, client, percent):  # noqa: F811
    client.force_login(developer)
    data = edited(quiet(client), "pinapps", lambda d: d["spec"].update(rollout={"maxUnavailable": percent}))

    found = answers(client, "pinapps", data)

    assert found["sync/"][0] == 200 and "must be a count or a percentage" in found["sync/"][1]
    for action in ("preview/", "create/"):
        status, page = found[action]
        assert status == 400 and "must be a count or a percentage" in page, (action, status)
    assert not host


@pytest.mark.parametrize("index", ["²", NINES, "٤"], ids=short)
def test_removing_a_list_item_of_an_index_int_cannot_read_changes_nothing(granted, developer, client, index):
    client.force_login(developer)
    data = posted(text(client.get("/workloads/catalog/pinpods/")), op=f"remove:f~spec~containers~{index}")

    response = quiet(client).post("/workloads/catalog/pinpods/sync/", data, **HX)

    assert response.status_code == 200
    assert 'name="f~spec~containers~0~image"' in text(response)  # the one container is still there


def test_a_whole_number_field_of_thousands_of_digits_is_named_not_a_500(host, developer, client):  # noqa: F811
    client.force_login(developer)
    data = posted(text(client.get("/workloads/catalog/pinapps/")), f__spec__replicas=NINES, project="ads")

    synced = quiet(client).post("/workloads/catalog/pinapps/sync/", data, **HX)
    created = client.post("/workloads/catalog/pinapps/create/", data, **HX)

    assert synced.status_code == 200
    assert created.status_code == 400 and "spec.replicas" in text(created) and not host


@pytest.mark.parametrize(
    ("typed", "read"), [("7", 7), ("-3", -3), ("0042", 42), ("٤", "٤"), ("²", "²"), (NINES, NINES), ("1_0", "1_0")]
)
def test_a_typed_whole_number_is_read_from_ascii_digits_only(typed, read):
    assert parse_value(Int(), typed) == read
