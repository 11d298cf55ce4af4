"""Fixtures for the workload journey in a browser: the registry's host and members with the platform installed
(tests/projects/provisioning), the federation operator as a subprocess, a project with a developer and an
OnDemand grant, and that developer signed in. The live server runs in this process, so the pages read the same
host and member caches the registry fixtures started."""

from __future__ import annotations

import pytest

from tests.support.provisioning import (  # noqa: F401 - fixtures, used by name
    eager_tasks,
    federation,
    pools,
    register,
    team_project,
)
from tests.support.workload_operator import created, operator  # noqa: F401 - fixtures, used by name

PASSWORD = "pw-journey-Secret!"


@pytest.fixture
def project(federation, admin_user, user):  # noqa: F811
    """A project onboarded through the product, ``user`` its developer, with room for a few small replicas."""
    return team_project("journey", admin_user, user, grants={"ondemand": ("8", "16Gi", "0", "0")})


@pytest.fixture
def developer_page(page, live_server, user):
    """``page`` signed in as the project's developer through the dev password form."""
    user.set_password(PASSWORD)
    user.save()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", user.get_username())
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return page
