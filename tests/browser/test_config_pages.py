"""The Secrets pages in Chromium against the real host apiserver: a developer creates a Secret from the form (a bad name
refused beside the field), never sees its value again (keys set or unset, version, who changed it), edits a key,
and a viewer sees the names only. Screenshots: secrets-refused.png, secrets-created.png,
secret-edited.png, secrets-viewer.png."""

from __future__ import annotations

import secrets
import uuid

import pytest

from tests.support.browser import GENEROUS_MS, signed_in
from tests.support.provisioning import eager_tasks, federation, onboard, pools, register  # noqa: F401

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "federation"),
]


def test_a_secret_from_the_form_is_never_shown_again(admin_user, user, other_user, page, live_server, screenshot_dir):
    project = onboard(
        f"cfg-{uuid.uuid4().hex[:6]}",
        admin_user,
        members=[("user", admin_user.username, "owner"), ("user", user.username, "developer"),
                 ("user", other_user.username, "viewer")],
    )  # fmt: skip
    value = secrets.token_hex(16)
    url = f"{live_server.url}/projects/{project.name}/secrets/"
    page.set_default_timeout(GENEROUS_MS)
    signed_in(page, live_server.url, user)
    page.goto(url)

    page.fill("#configs input[name=name]", "Bad_Name")
    page.fill("#configs textarea[name=data]", f"password={value}\nempty=")
    page.click("#configs button:has-text('Create')")
    page.wait_for_selector("#id_name_error")
    page.screenshot(path=str(screenshot_dir / "secrets-refused.png"), full_page=True)

    assert "subdomain" in page.locator("#id_name_error").inner_text().lower()

    page.fill("#configs input[name=name]", "db")
    page.click("#configs button:has-text('Create')")
    page.wait_for_selector("#configs td:has-text('db')")
    page.screenshot(path=str(screenshot_dir / "secrets-created.png"), full_page=True)

    listed = page.locator("#configs tbody").inner_text()
    assert "password: set" in listed and "empty: unset" in listed and user.username in listed
    assert value not in page.content()

    page.click("#configs a:has-text('db')")
    page.wait_for_selector("#config")
    page.fill("#config textarea[name=data]", "user=app")
    page.check("#config input[name=remove][value=empty]")
    page.click("#config button:has-text('Save')")
    page.wait_for_selector("#config .card-header:has-text('version 2')")
    page.screenshot(path=str(screenshot_dir / "secret-edited.png"), full_page=True)

    keys = page.locator("#config tbody").inner_text()
    assert "user" in keys and "password" in keys and "empty" not in keys
    assert value not in page.content()

    page.goto(url)  # a second Secret, deleted from its page
    page.fill("#configs input[name=name]", "scratch")
    page.fill("#configs textarea[name=data]", "k=v")
    page.click("#configs button:has-text('Create')")
    page.click("#configs a:has-text('scratch')")
    page.wait_for_selector("#config")
    page.click("#config button:has-text('Delete')")
    page.click(".modal button:has-text('Confirm')")  # the portal's confirmation dialog (hx-confirm)
    page.wait_for_url(url)
    page.wait_for_selector("#configs td:has-text('db')")

    assert "scratch" not in page.locator("#configs tbody").inner_text()

    signed_in(page, live_server.url, other_user)
    page.goto(url)
    page.screenshot(path=str(screenshot_dir / "secrets-viewer.png"), full_page=True)

    assert page.locator("#configs tbody").inner_text().strip() == "db"
    assert page.locator("#configs form").count() == 0
