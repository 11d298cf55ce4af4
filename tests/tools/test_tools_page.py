"""``/tools/``: what the platform offers, one line each, linked from every page's navigation. Every link it shows is
followed and answers 200 (the portal's pages through the test client, Prometheus over HTTP: the session's real one);
an entry whose target this install lacks is not shown, and the projects' section lists only what the user may see."""

from __future__ import annotations

import re
import urllib.request

import pytest
from django.conf import settings

pytestmark = [pytest.mark.django_db, pytest.mark.integration]
LINK = re.compile(r'<a class="[^"]*" href="([^"]+)" data-tool-link')


def tool_links(page: str) -> list[str]:
    return [url.replace("&amp;", "&") for url in LINK.findall(page)]


@pytest.mark.parametrize("who", ["owner", "viewer", "admin_user"])
def test_every_link_of_the_page_answers_200(client, project, request, usage_metrics, log_archive, who):
    client.force_login(request.getfixturevalue(who))

    page = client.get("/tools/")

    assert page.status_code == 200
    links = tool_links(page.content.decode())
    assert "/api/docs/" in links and settings.PROMETHEUS_URL in links
    for url in links:
        if url.startswith("/"):
            assert client.get(url).status_code == 200, url
        else:  # another service this install names (Prometheus): a new tab, followed as a browser would
            with urllib.request.urlopen(url, timeout=30) as answer:
                assert answer.status == 200, url


def test_only_what_this_install_has_is_listed(client, project, developer, admin_user, settings):
    settings.LOG_ARCHIVE_URL, settings.PROMETHEUS_URL = "", ""
    settings.GRAFANA_URL = "http://grafana.example.com/"
    client.force_login(developer)

    page = client.get("/tools/").content.decode()

    assert 'data-tool="logs"' not in page  # no log archive configured
    assert "Use against requests" not in page and 'href="http://grafana.example.com/"' in page
    assert 'data-tool="webhooks"' not in page  # owners only: the developer owns nothing
    assert 'data-tool="clusters"' not in page and 'data-tool="audit"' not in page
    client.force_login(admin_user)
    admin = client.get("/tools/").content.decode()
    assert 'data-tool="clusters"' in admin and 'href="/projects/ads/webhooks/"' in admin


def test_the_cli_line_names_this_portal_and_the_nav_links_the_page(client, project, developer):
    client.force_login(developer)

    page = client.get("/tools/").content.decode()
    dashboard = client.get("/").content.decode()

    assert "pip install ./sdk &amp;&amp; pincompute login --url http://testserver --token-file" in page
    assert 'href="/tools/"' in dashboard


def test_the_projects_section_shows_owners_and_links_of_the_users_projects_only(client, project, other_project, viewer):
    project.oncall = "ads-oncall@example.com"
    project.links = [{"kind": "runbook", "title": "Runbook", "url": "https://wiki.example.com/ads"}]
    project.save()
    client.force_login(viewer)

    page = client.get("/tools/").content.decode()

    assert 'data-project="ads"' in page and 'data-project="ml"' not in page
    assert 'href="mailto:ads-oncall@example.com"' in page and 'href="https://wiki.example.com/ads"' in page
