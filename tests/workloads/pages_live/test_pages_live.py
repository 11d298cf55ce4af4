"""The workload pages through the real apiservers: the registry's host and members, the federation operator
as a subprocess, every kind submitted through the submission service. Each is admitted and placed on the
members, the list shows one row per host workload and the detail page the aggregated status; a privileged
submission is refused and writes nothing; a workload over the grant waits, and its row says why."""

from __future__ import annotations

import html
import re

import pytest

from base.errors import Invalid
from clusters import runtime
from devtools.waiting import wait_for
from pincompute.kinds import KINDS
from pincompute.labels import WORKLOAD_LABEL
from tests.support.provisioning import team_project
from workloads import host, services
from workloads.examples import example
from workloads.reads import condition

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


def text(response) -> str:
    return html.unescape(response.content.decode())


def host_object(kind: str, namespace: str, name: str) -> dict | None:
    cache = runtime.host_cache()
    return cache.get(KINDS[kind].plural, namespace, name) if cache is not None else None


def placed(kind: str, namespace: str, name: str) -> list[str]:
    """The members whose cache holds the workload's shard, once the host says it is admitted and scheduled."""
    obj = host_object(kind, namespace, name)
    if condition(obj, "Admitted").get("status") != "True" or condition(obj, "Scheduled").get("status") != "True":
        return []
    plural = KINDS[kind].plural
    return sorted(n for n, cache in runtime.member_caches().items() if cache.get(plural, namespace, name))


def test_every_kind_is_admitted_placed_and_shown_a_privileged_one_refused_and_a_waiting_one_says_why(
    operator, created, admin_user, user, client
):
    project = team_project("pages", admin_user, user, grants={"ondemand": ("16", "64Gi", "0", "0")})
    ns = project.namespace
    names = {}
    for kind in KINDS:
        document = example(kind, project=project.name)
        names[kind] = document["metadata"]["name"]
        services.submit_workload(project, document, actor=user)
        created.append((kind, ns, names[kind]))

    for kind, name in names.items():
        clusters = wait_for(lambda k=kind, n=name: placed(k, ns, n), 90, interval=0.5, what=f"{kind} {name} placed")
        assert set(clusters) <= {"member-a", "member-b"}, clusters
    pod_kinds = [k for k in KINDS if KINDS[k].runs_pods and k != "PinterestCronJob"]  # a cron job waits for 02:30

    def pods_of(kind: str) -> int:
        selector = {WORKLOAD_LABEL: names[kind]}
        return sum(len(c.list("pods", ns, label_selector=selector)) for c in runtime.member_caches().values())

    for kind in pod_kinds:
        wait_for(lambda k=kind: pods_of(k) > 0, 90, interval=0.5, what=f"{kind} pods on the members")
    app = names["PinApp"]
    wait_for(
        lambda: (host_object("PinApp", ns, app) or {}).get("status", {}).get("phase") == "Running",
        120,
        interval=0.5,
        what="the PinApp running on every shard",
    )

    client.force_login(user)
    listing = text(client.get(f"/workloads/?project={project.name}"))
    rows = dict(re.findall(r'data-workload="[^/]+/([^"]+)" data-status="([^"]+)"', listing))
    assert set(rows) == {f"{kind}/{name}" for kind, name in names.items()}
    assert rows[f"PinApp/{app}"] == "running"
    page = client.get(f"/workloads/{project.name}/PinApp/{app}/")
    detail = text(page)
    assert page.status_code == 200
    assert 'data-status="running"' in detail and "2/2" in detail
    assert 'data-shard="member-a"' in detail and 'data-shard="member-b"' in detail
    assert re.search(rf'href="/debug/member-[ab]/{ns}/{app}-[^"]+/shell/"', detail)
    assert "Revision 1 accepted" in detail and "Scheduled" in detail

    privileged = example("PinPod", project=project.name)
    privileged["metadata"]["name"] = "root-pod"
    privileged["spec"]["containers"][0]["securityContext"] = {"privileged": True}
    with pytest.raises(Invalid) as refused:
        services.submit_workload(project, privileged, actor=user)
    assert any("privileged" in e.path for e in refused.value.fields), refused.value.fields
    with pytest.raises(Exception, match="not found"):
        host.get("PinPod", ns, "root-pod")

    big = example("PinApp", project=project.name)
    big["metadata"]["name"] = "too-big"
    big["spec"] |= {"replicas": 1, "zones": ["local-1a"]}
    big["spec"]["template"]["containers"][0]["resources"]["requests"] = {"cpu": "15", "memory": "256Mi"}
    services.submit_workload(project, big, actor=user)  # fits the grant alone, not beside the others: it waits
    created.append(("PinApp", ns, "too-big"))

    def waiting_row() -> str:
        """The row once admission has decided: waiting, and saying why."""
        table = text(client.get(f"/workloads/?project={project.name}&status=waiting"))
        if "PinApp/too-big" not in table:
            return ""
        row = table[table.index("PinApp/too-big") :]
        row = row[: row.index("</tr>")]
        # The page reads the host watch cache, which may be a moment behind the apiserver: wait for the
        # row itself to say why (not only for admission's verdict on the host).
        return row if "workload-reason" in row and "cpu" in row else ""

    row = wait_for(waiting_row, 60, interval=0.5, what="the waiting row, decided")
    assert "workload-reason" in row and "cpu" in row, row
