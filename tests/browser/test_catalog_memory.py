# ruff: noqa: F811 - fixtures imported from the support modules are named as parameters
"""The catalog editor keeps what the user wrote across a reload (both panes), until they start again from the
example."""

from __future__ import annotations

import pytest

from tests.support.kinds import *  # noqa: F403
from tests.support.kinds import granted  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
URL = "/workloads/catalog/pinapps/"
REPLICAS = "input[name='f~spec~replicas']"


def sign_in(page, live_server, user, password: str):
    user.set_password(password)
    user.save()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", user.get_username())
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return page


def yaml_says(page, text: str) -> None:
    page.wait_for_function("(t) => document.getElementById('id_document').value.includes(t)", arg=text)


def test_a_reload_keeps_the_edits_in_both_panes(page, live_server, granted, developer, screenshot_dir):
    sign_in(page, live_server, developer, "pw-devi-Secret!")
    page.goto(f"{live_server.url}{URL}")
    page.fill(REPLICAS, "5")
    page.locator(REPLICAS).dispatch_event("change")
    yaml_says(page, "replicas: 5")

    page.reload()
    yaml_says(page, "replicas: 5")
    page.wait_for_function("(s) => document.querySelector(s).value === '5'", arg=REPLICAS)  # the form re-rendered

    assert page.locator("#sync-status [data-checks='0']").count() == 1
    page.screenshot(path=str(screenshot_dir / "catalog-kept-after-reload.png"), full_page=True)

    with page.expect_navigation():
        page.click("[data-draft-reset]")
    yaml_says(page, "replicas: 2")
    assert page.locator(REPLICAS).input_value() == "2"
