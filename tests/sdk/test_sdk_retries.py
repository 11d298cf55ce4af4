"""The SDK's retries against the real portal (its ASGI app under uvicorn, every answer recorded by the server): the
per-user throttle's real 429 and its Retry-After waited out for real, and a real 503 from a host cluster that cannot
be reached (its apiserver behind a TCP forwarder that is stopped), retried as the server asks, then the CLI's exit
code 5; once the host is back, the same client gets the host's own answer. No view, service or host is faked."""

from __future__ import annotations

import io
import itertools
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pinconsole_sdk import Client, NotFound, RateLimited, RetryPolicy
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from clusters import runtime
from clusters.services import register_cluster
from devtools.devstack import install_platform
from tests.harness.forwarder import TcpForwarder

pytestmark = pytest.mark.django_db(transaction=True)

LIST = "/api/v1/workloads/"
ONE = "/api/v1/projects/ads/workloads/PinApp/web/"


@pytest.fixture
def token(developer) -> str:
    return create_api_token(user=developer, name="retries", days=1)[1]


@pytest.fixture
def read_rate(settings):
    """``read_rate("1/s")``: the API's per-user read rate for this test (the throttle reads it at each request)."""

    def set_rate(rate: str) -> None:
        rest = dict(settings.REST_FRAMEWORK)
        rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], "api-read": rate}
        settings.REST_FRAMEWORK = rest

    return set_rate


def test_the_sdk_waits_out_the_throttles_429_for_as_long_as_retry_after_says(asgi_portal, token, read_rate):
    read_rate("1/s")
    client = Client(asgi_portal.url, token, rng=lambda: 0.0, env={})  # no jitter: only Retry-After makes it wait

    started = time.monotonic()
    for _ in range(3):
        assert client.list_workloads() == []
    elapsed = time.monotonic() - started

    answers = asgi_portal.to("GET", LIST)
    assert [a.status for a in answers] == [200, 429, 200, 429, 200]
    assert [a.retry_after for a in answers if a.status == 429] == ["1", "1"]
    for refused, retried in zip(answers[1::2], answers[2::2], strict=True):  # the retry came after the wait
        assert retried.at - refused.at >= 1.0
    assert elapsed >= 2.0


def test_a_retry_after_beyond_the_policys_bound_is_raised_at_once_and_the_cli_exits_5(
    asgi_portal, token, read_rate, monkeypatch
):
    read_rate("1/min")
    client = Client(asgi_portal.url, token, retry=RetryPolicy(max_retry_after=10), env={})
    client.list_workloads()

    with pytest.raises(RateLimited) as raised:
        client.list_workloads()

    assert 10 < raised.value.retry_after <= 60
    out, err = io.StringIO(), io.StringIO()
    assert main(["get", "-o", "json"], out=out, err=err, client=client) == 5
    assert "throttled" in err.getvalue() and out.getvalue() == ""
    assert [a.status for a in asgi_portal.to("GET", LIST)] == [200, 429, 429]  # one try each: no retry


@pytest.fixture
def host_behind_forwarder(local_control_plane, tmp_path: Path):
    """The host cluster registered with its apiserver behind a TCP forwarder (platform installed through it)."""
    info = local_control_plane.cluster("host")
    target = urlsplit(info.server)
    forwarder = TcpForwarder((str(target.hostname), int(target.port or 443)))
    kubeconfig = tmp_path / "kubeconfig"
    server = f"https://127.0.0.1:{forwarder.port}"
    kubeconfig.write_text(Path(local_control_plane.kubeconfig_path).read_text().replace(info.server, server))
    forwarder.start()
    host, _ = register_cluster(
        name="host",
        region=info.region,
        zone=info.zone,
        role="host",
        api_server=server,
        kubeconfig_path=str(kubeconfig),
        kube_context=info.context,
    )
    install_platform(host)
    yield forwarder
    forwarder.stop()
    runtime.shutdown()


@pytest.mark.integration
@pytest.mark.cluster
def test_a_real_503_from_an_unreachable_host_is_retried_as_the_server_asks_then_the_host_answers(
    asgi_portal, token, project, host_behind_forwarder
):
    host_behind_forwarder.stop()  # the host apiserver, as the portal sees it, is down
    client = Client(asgi_portal.url, token, retry=RetryPolicy(attempts=3), env={})

    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    code = main(["get", "pinapp", "web", "-p", "ads"], out=out, err=err, client=client)
    elapsed = time.monotonic() - started

    assert code == 5 and "unavailable" in err.getvalue(), err.getvalue()
    answers = asgi_portal.to("GET", ONE)
    assert [a.status for a in answers] == [503, 503, 503]  # three tries, as the policy allows
    waits = [float(a.retry_after or 0) for a in answers]
    assert all(w >= 1 for w in waits)
    for refused, retried in itertools.pairwise(answers):
        assert retried.at - refused.at >= float(refused.retry_after or 0)  # Retry-After waited out each time
    assert elapsed >= sum(waits[:2])

    host_behind_forwarder.start()  # back: the same client, with its default policy, gets the host's own answer
    with pytest.raises(NotFound):
        Client(asgi_portal.url, token, env={}).get("ads", "PinApp", "web")
    statuses = [a.status for a in asgi_portal.to("GET", ONE)[3:]]
    assert statuses[-1] == 404 and set(statuses[:-1]) <= {503}, statuses  # 503 while its breaker cools off
