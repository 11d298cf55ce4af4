"""An inline (htmx) save of a cluster's attributes confirms in the partial it swaps in, and queues no flash
message for some later page; a plain POST keeps post/redirect/get with the message on the page it lands on."""

from __future__ import annotations

import html

import pytest

from tests.support.factories import make_cluster

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
SAVED = "Saved the attributes of member-x."


def form(zone: str) -> dict[str, str]:
    return {"region": "local-1", "zone": zone, "hardware_families": "general", "labels": "", "taints": "",
            "schedulable": "on"}  # fmt: skip


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_htmx_saves_confirm_in_the_partial_and_leave_nothing_for_the_next_page(admin_client_):
    make_cluster()

    answers = [admin_client_.post("/clusters/member-x/attributes/", form(zone), **HX) for zone in ("a", "b", "c")]
    later = text(admin_client_.get("/projects/"))

    for answer in answers:
        assert answer.status_code == 200 and "<html" not in text(answer)
        assert text(answer).count(SAVED) == 1
    assert "Saved the attributes" not in later


def test_a_plain_save_redirects_and_the_detail_page_says_it_once(admin_client_):
    make_cluster()

    response = admin_client_.post("/clusters/member-x/attributes/", form("local-1b"))
    landed = text(admin_client_.get(response["Location"]))
    again = text(admin_client_.get("/projects/"))

    assert response.status_code == 302 and response["Location"] == "/clusters/member-x/"
    assert landed.count(SAVED) == 1 and "Saved the attributes" not in again
