"""The preview page names the project's NetworkPolicies a workload's pods fall under, with what each admits."""

from __future__ import annotations

import pytest

from projects.network import set_openings
from tests.support.fake_host import HX, URL, edited_document, text

pytestmark = pytest.mark.django_db


def test_the_edit_preview_shows_the_policies_and_the_openings(web, project, owner, developer, client):
    set_openings(project, [{"port": 9000, "protocol": "TCP", "ingress": True}], actor=owner)
    client.force_login(developer)

    page = text(client.post(f"{URL}spec/preview/", {"document": edited_document(web, 5)}, **HX))

    assert 'data-policy="pincompute-isolation"' in page and 'data-policy="pincompute-openings"' in page
    assert "TCP 9000 from the ingress" in page and "every port from the project" in page
