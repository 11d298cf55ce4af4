"""Right-sizing against the real local stack: two PinApps asking 1 CPU and 1Gi run on the members; their pods say
(kwok's usage annotations) they use a tenth of that; the session's Prometheus scrapes kwok; the recommendation comes
close to the use (115m and 116Mi: use plus 15 %, rounded up) through the API, the page and ``pincompute recommend``;
one is applied through the page (Apply opens the edit with the preview, then the edit's Save), the other with
``pincompute recommend --apply`` (the preview printed, then the write), and each workload's spec changes."""

from __future__ import annotations

# isort: off
import tests.support.sdk  # noqa: F401 - first: the SDK's own directory on sys.path, for pinconsole_sdk
# isort: on

import html
import io
import re

import pytest
from kubernetes.client import CoreV1Api
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from clusters import runtime
from clusters.models import Cluster
from devtools.localcp.kwokcfg import USAGE_CPU_ANNOTATION, USAGE_MEMORY_ANNOTATION
from devtools.waiting import wait_for
from rightsizing.services import workload_advice
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads import host, services
from workloads.examples import example

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
TENTH = {USAGE_CPU_ANNOTATION: "100m", USAGE_MEMORY_ANNOTATION: "100Mi"}


def running_pods(namespace: str, name: str) -> list[tuple[Cluster, str]] | None:
    """The workload's pods Running on the members and in the portal's caches, or None while there are none."""
    found = []
    for cluster in Cluster.objects.filter(role="member").order_by("name"):
        for pod in CoreV1Api(runtime.api_for(cluster)).list_namespaced_pod(namespace).items:
            cached = runtime.member_caches()[cluster.name].get("pods", namespace, pod.metadata.name)
            if pod.metadata.labels.get("pincompute.io/workload") != name or pod.status.phase != "Running":
                continue
            if (cached or {}).get("status", {}).get("phase") == "Running":
                found.append((cluster, pod.metadata.name))
    return found or None


def an_app(project, user, made: list, name: str) -> dict:
    app = example("PinApp", project=project.name)
    app["metadata"]["name"] = name
    app["spec"] |= {"replicas": 1, "zones": ["local-1a"]}
    app["spec"]["template"]["containers"][0]["resources"] = {
        "requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"},
    }  # fmt: skip
    services.submit_workload(project, app, actor=user)
    made.append(("PinApp", project.namespace, name))
    return app


def requests_on_host(project, name: str) -> dict:
    return host.get("PinApp", project.namespace, name)["spec"]["template"]["containers"][0]["resources"]["requests"]


def test_a_tenth_of_the_request_is_recommended_near_its_use_and_applying_it_previews_and_submits(
    usage_metrics,
    operator,  # noqa: F811
    created,  # noqa: F811
    admin_user,
    user,
    client,
    live_server,
    monkeypatch,
):
    project = team_project("rightsize", admin_user, user, grants={"ondemand": ("16", "64Gi", "0", "0")})
    for name in ("web", "api"):
        an_app(project, user, created, name)
    for name in ("web", "api"):
        for cluster, pod in wait_for(lambda n=name: running_pods(project.namespace, n), 180, what=f"{name}'s pod"):
            CoreV1Api(runtime.api_for(cluster)).patch_namespaced_pod(
                pod, project.namespace, {"metadata": {"annotations": TENTH}}
            )

    seen: dict[str, object] = {}

    def settled(name: str):
        """Near the use: CPU 100m plus 15 % (115m, or a step more when the scraped rate jitters above 100m), memory
        100Mi plus 15 % rounded up to 4Mi (a gauge: exact)."""
        rec = workload_advice(user, project.name, "PinApp", name, {"window": "1h"}).containers[0].recommendation
        seen[name] = rec
        return rec if rec is not None and 115 <= rec.cpu_milli <= 120 and rec.memory == "116Mi" else None

    deadline = 60 * usage_metrics.scrape_seconds + 60  # p90 settles once the 1m start is under a tenth of the points
    for name in ("web", "api"):
        try:
            wait_for(lambda n=name: settled(n), deadline, interval=1, what=f"{name}'s recommendation near its use")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the last recommendations: {seen}") from None

    # the API: close to the use, the saving in cores, GiB and money, low confidence (minutes of history)
    client.force_login(user)
    body = client.get(f"/api/v1/projects/{project.name}/workloads/PinApp/web/recommendations/?window=1h").json()
    (web,) = body["containers"]
    assert (web["cpu_request"], web["memory_request"]) == ("1", "1Gi")
    assert web["cpu_use"] == pytest.approx(0.1, rel=0.05) and web["memory_use"] == 100 * (1 << 20)
    assert web["recommendation"]["confidence"] == "low" and web["recommendation"]["capped"] == []
    rec = web["recommendation"]
    assert 115 <= rec["cpu_millicores"] <= 120 and rec["memory"] == "116Mi"
    assert web["cpu_saving"] == pytest.approx(1 - rec["cpu_millicores"] / 1000)
    assert web["memory_saving_gib"] == pytest.approx(1 - 116 / 1024, abs=1e-3)
    assert float(web["money_saving"]) > 0

    # the page: beside the spec, and Apply opens the edit with the recommended requests and the preview
    one = f"/workloads/{project.name}/PinApp/web/"
    panel = html.unescape(client.get(f"{one}recommendations/?window=1h").content.decode())
    assert 'data-recommended="' + rec["cpu"] + ' / 116Mi"' in panel and 'id="rightsizing-apply"' in panel
    page = client.get(f"{one}recommendations/apply/?window=1h")
    text = html.unescape(page.content.decode())
    assert page.status_code == 200 and 'id="preview-result"' in text and 'data-verdict="fits"' in text
    assert 'data-change="spec.template.containers[0].resources.requests.cpu"' in text
    document = re.search(r'<textarea[^>]*name="document"[^>]*>(.*?)</textarea>', text, re.S).group(1)
    version = re.search(r'name="version" value="([^"]+)"', text).group(1)
    applied = re.search(r"cpu: (\d+m)\n\s+memory: (\d+Mi)", document).groups()
    assert 115 <= int(applied[0][:-1]) <= 120 and applied[1] == "116Mi"
    saved = client.post(f"{one}spec/", {"document": document, "version": version})
    assert saved.status_code == 302
    assert requests_on_host(project, "web") == {"cpu": applied[0], "memory": "116Mi"}

    # the CLI: the table, then --apply: the preview printed, then the write
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=user, name="recommend", days=1)[1])

    def cli(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        return main(list(argv), out=out, err=io.StringIO()), out.getvalue()

    code, out = cli("recommend", "workload/api", "-n", project.name, "--window", "1h")
    # the use is a rate over real scrapes: within a few percent of the emulated 100m (99m seen on a loaded machine)
    table = r"\b1/1Gi\s+(?:9[5-9]|10[0-5])m/100Mi\s+1[12][05]m/116Mi\b"
    assert code == 0 and re.search(table, out) and "low (" in out, out
    code, out = cli("recommend", "pinapp/api", "-n", project.name, "--window", "1h", "--apply")
    assert code == 0, out
    assert "pinapp/api configured (preview)" in out and "quota OnDemand fits now" in out
    cpu = re.search(r"change spec.template.containers\[0\].resources.requests.cpu: '1' -> (\d+m)", out).group(1)
    assert re.search(r"pinapp/api configured \(version \S+\)", out)
    assert requests_on_host(project, "api") == {"cpu": cpu, "memory": "116Mi"}
