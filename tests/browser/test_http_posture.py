"""The Content-Security-Policy in a real browser: Chromium reports no violation on the portal's pages (the terminal,
charts, API docs and admin included), and htmx's state-changing requests carry the CSRF token the server checks."""

from __future__ import annotations

import pytest

from tests.support.factories import make_project

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-Posture-123!"


def signed_in_page(browser, live_server, user):
    user.set_password(PASSWORD)
    user.save()
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    page = context.new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: violations.append(f"page error: {e}"))
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", user.get_username())
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return context, page, violations


def test_the_pages_run_under_the_policy_without_a_single_violation(browser, live_server, admin_user, screenshot_dir):
    make_project("ads", admin_user)
    context, page, violations = signed_in_page(browser, live_server, admin_user)
    try:
        for path in ("/", "/projects/", "/projects/ads/", "/workloads/catalog/", "/tokens/", "/clusters/", "/audit/"):
            page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("networkidle")
        page.goto(f"{live_server.url}/api/docs/")
        page.wait_for_selector(".swagger-ui .info", timeout=15000)  # the split view's script ran
        page.goto(f"{live_server.url}/admin/")
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(screenshot_dir / "admin-read-only.png"))

        assert violations == []
        # the control: an injected inline handler is refused, and the listener above does see that
        page.evaluate("document.body.insertAdjacentHTML('beforeend', '<img src=\"/nothing\" onerror=\"1\">')")
        page.wait_for_timeout(500)
        assert any("inline event handler" in v for v in violations), violations
    finally:
        context.close()


def test_htmx_posts_carry_the_csrf_token_and_a_request_without_it_is_refused(browser, live_server, user):
    context, page, violations = signed_in_page(browser, live_server, user)
    try:
        page.goto(f"{live_server.url}/tokens/")
        with page.expect_request(lambda r: r.method == "POST") as sent:
            page.evaluate("htmx.ajax('POST', '/tokens/', {values: {name: 'via-htmx'}, target: '#main', swap: 'none'})")
        request = sent.value
        answer = request.response()
        forged = page.evaluate(
            "fetch('/tokens/', {method: 'POST', body: new URLSearchParams({name: 'forged'})}).then(r => r.status)"
        )

        assert request.headers.get("x-csrftoken") and answer is not None and answer.status == 302  # created: PRG
        assert forged == 403
        assert list(user.api_tokens.values_list("name", flat=True)) == ["via-htmx"]
        assert violations == []
    finally:
        context.close()
