"""``pincompute cost`` against the real portal (``live_server``) with a real API token: per workload the cost by
request, by use and the difference; for a platform admin each pool's idle cost apart; no project is a usage error
(the samples and their arithmetic: tests/usage/test_cost_by_use_api.py)."""

from __future__ import annotations

import io

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from tests.support.cost_samples import cost, samples  # noqa: F401 - a fixture, used by name

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("samples")]


def test_the_cli_prints_by_request_by_use_and_the_pools(
    live_server,
    admin_user,
    monkeypatch,
):
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=admin_user, name="ops", days=1)[1])
    out, err = io.StringIO(), io.StringIO()

    code = main(["cost", "-n", "ads", "--window", "1h"], out=out, err=err)

    assert code == 0, err.getvalue()
    lines = [line.split() for line in out.getvalue().splitlines()]
    assert lines[0][:3] == ["NAME", "BY", "REQUEST"]
    web = next(line for line in lines if line[0] == "PinApp/web")
    assert web[1:] == [f"{cost(100):.2f}", f"{cost(150):.2f}", f"{cost(50):.2f}"]

    out = io.StringIO()
    assert main(["cost", "-A", "--window", "1h"], out=out, err=err) == 0, err.getvalue()
    pool = next(line.split() for line in out.getvalue().splitlines() if line.startswith("member-a"))
    assert pool == ["member-a", "ondemand", f"{cost(1000):.2f}", f"{cost(700):.2f}", f"{cost(650):.2f}"]
    assert main(["cost"], out=io.StringIO(), err=io.StringIO()) == 2
