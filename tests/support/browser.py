"""Browser helpers shared by the Playwright tests: a page signed in as a user (a force_login's session cookie)."""

from __future__ import annotations

from django.test import Client


def signed_in(page, base: str, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base}])
