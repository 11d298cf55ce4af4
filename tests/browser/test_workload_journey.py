# ruff: noqa: F811 - fixtures imported from journey_fixtures are named as parameters
"""A developer's workload journey in a real browser against the real stack (issue 11): the live server on
PostgreSQL, the registry's host and members (local control plane, platform installed), the federation operator
as a subprocess placing shards on the members.

1. From the catalog, a PinApp is filled in through the generated form (the YAML follows), created, and its page
   shows it Running in two zones (member-a/local-1a, member-b/local-1b); it is scaled to 4 and shows 4 ready,
   paused and shows paused, and its timeline names the admission, the scheduling and the shards.
2. YAML with a privileged container pasted into the editor is refused inline, naming the field, and nothing
   is written on the host.
"""

from __future__ import annotations

import uuid

import pytest

from base.errors import NotFound
from clusters import runtime
from pincompute.kinds import KINDS
from tests.support.journey import (  # noqa: F401 - fixtures, used by name
    created,
    developer_page,
    eager_tasks,
    federation,
    operator,
    pools,
    project,
    register,
)
from workloads import host
from workloads.documents import dump_document
from workloads.examples import example
from workloads.reads import condition

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
ZONES = {"member-a": "local-1a", "member-b": "local-1b"}


def field(name: str) -> str:
    """The generated form's input for a schema path (``f~spec~replicas``)."""
    return f"#form-pane [name='f~{name}']"


def change(page, selector: str, value: str) -> None:
    """Type into a form field and leave it, as a person does: ``change`` sends the form to the YAML pane."""
    page.fill(selector, value)
    page.dispatch_event(selector, "change")


def yaml_has(page, *fragments: str, timeout: float = 10_000) -> None:
    page.wait_for_function(
        "fragments => fragments.every(f => document.getElementById('id_document').value.includes(f))",
        arg=list(fragments),
        timeout=timeout,
    )


def confirm(page) -> None:
    """Answer the confirmation modal once it is shown (its confirm button has the focus then)."""
    page.wait_for_function("() => document.activeElement?.closest('#confirm-modal .modal-footer') != null")
    page.click("#confirm-modal .modal-footer .btn:not([data-bs-dismiss])")
    page.wait_for_selector("#confirm-modal", state="hidden")


def shot(page, directory, name: str) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(300)
    page.screenshot(path=str(directory / f"journey-{name}.png"), full_page=True)


def status_shows(page, status: str, ready: str, shards: dict[str, str], timeout: float = 90_000) -> None:
    """Wait until the polled status panel shows ``status``, ``ready`` (``n/m``) and every shard Ready in its
    zone with all its replicas ready."""
    page.wait_for_function(
        """([status, ready, shards]) => {
            const panel = document.getElementById('workload-status');
            if (!panel || !panel.querySelector(`[data-status='${status}']`)) return false;
            const cells = [...panel.querySelectorAll('.card-body strong')].map(e => e.textContent.trim());
            if (!cells.includes(ready)) return false;
            const rows = [...panel.querySelectorAll('tr[data-shard]')];
            if (rows.length !== Object.keys(shards).length) return false;
            return rows.every(r => {
                const td = r.querySelectorAll('td');
                const [got, want] = td[3].textContent.trim().split('/');
                return r.dataset.shard in shards && td[1].textContent.trim() === shards[r.dataset.shard]
                    && td[2].textContent.trim() === 'Ready' && got === want && want !== '0';
            });
        }""",
        arg=[status, ready, shards],
        timeout=timeout,
        polling=500,
    )


def test_a_pinapp_from_the_catalog_runs_in_two_zones_is_scaled_paused_and_has_a_timeline(
    developer_page, live_server, operator, created, project, screenshot_dir
):
    page = developer_page
    name = f"shop-{uuid.uuid4().hex[:5]}"
    ns = project.namespace
    created.append(("PinApp", ns, name))

    page.goto(f"{live_server.url}/workloads/catalog/")
    page.click("a[aria-label='Create a PinApp']")
    page.wait_for_url(f"{live_server.url}/workloads/catalog/pinapps/")
    page.wait_for_selector("#form-pane")
    shot(page, screenshot_dir, "1-catalog-pinapp")

    page.select_option("#form-pane select[name=project]", project.name)
    change(page, field("metadata~name"), name)
    yaml_has(page, f"name: {name}")
    change(page, field("spec~zones"), "local-1a\nlocal-1b")
    change(page, field("spec~template~containers~0~image"), "registry.local/demo/shop:2.0.1")
    change(page, field("spec~replicas"), "2")
    change(page, field("spec~template~containers~0~resources~requests~cpu"), "100m")
    yaml_has(
        page,
        f"name: {name}",
        f"project: {project.name}",
        "- local-1a\n  - local-1b",
        "image: registry.local/demo/shop:2.0.1",
        "replicas: 2",
        "cpu: 100m",
    )
    page.wait_for_selector("#sync-status [data-checks='0']")  # a valid PinApp
    shot(page, screenshot_dir, "2-form-filled-yaml-follows")

    page.click("#create-button")
    detail = f"{live_server.url}/workloads/{project.name}/PinApp/{name}/"
    page.wait_for_url(detail)
    assert host.get("PinApp", ns, name)["spec"]["zones"] == ["local-1a", "local-1b"]
    shot(page, screenshot_dir, "3-detail-just-created")

    status_shows(page, "running", "2/2", ZONES)  # the panel polls every 5 s
    shards = page.locator("#workload-status tr[data-shard]")
    assert {shards.nth(i).get_attribute("data-shard") for i in range(shards.count())} == set(ZONES)
    for cluster in ZONES:
        page.wait_for_selector(f"#workload-status tbody[data-cluster='{cluster}'] tr[data-pod]")
    shot(page, screenshot_dir, "4-running-in-two-zones")
    scheduled_at = condition(host.get("PinApp", ns, name), "Scheduled")["lastTransitionTime"]

    page.fill("#scale-replicas", "4")
    page.click("#actions button[data-op='scale']")
    confirm(page)
    page.wait_for_selector("#actions .alert-success")
    assert host.get("PinApp", ns, name)["spec"]["replicas"] == 4
    status_shows(page, "running", "4/4", ZONES)
    assert page.locator("#workload-status tr[data-pod]").count() >= 4
    shot(page, screenshot_dir, "5-scaled-to-4")

    page.click("#actions button[data-op='pause']")
    confirm(page)
    page.wait_for_selector("#actions .alert-success")
    assert host.get("PinApp", ns, name)["spec"]["operations"]["paused"] is True
    page.wait_for_selector("#workload-status [data-status='paused']", timeout=30_000)
    shot(page, screenshot_dir, "6-paused")
    # still scheduled where it was: the condition's transition (and so its timeline entry) has not moved
    assert condition(host.get("PinApp", ns, name), "Scheduled")["lastTransitionTime"] == scheduled_at

    page.reload()  # what a person coming back sees
    page.wait_for_selector("#workload-status [data-status='paused']")
    timeline = page.locator("#timeline")
    timeline.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#timeline li[data-category]')].length >= 4", timeout=30_000
    )
    text = timeline.inner_text()
    titles = page.locator("#timeline li[data-category] strong").all_inner_texts()
    assert any(t.startswith("Admitted") and "True" in t for t in titles), titles
    assert any(t.startswith("Scheduled") and "True" in t for t in titles), titles
    assert "Revision 1 accepted" in titles, titles
    assert "Ready" in text, text
    assert {s for s in page.locator("#timeline li[data-category] .badge").all_inner_texts()} & set(ZONES), text
    timeline.screenshot(path=str(screenshot_dir / "journey-7-timeline.png"))
    shot(page, screenshot_dir, "8-detail-after-pause")


def test_yaml_with_a_privileged_container_is_refused_naming_the_field(
    developer_page, live_server, project, screenshot_dir
):
    page = developer_page
    document = example("PinApp", project=project.name)
    document["metadata"]["name"] = "root-app"
    document["spec"]["template"]["containers"][0]["securityContext"] = {"privileged": True}

    page.goto(f"{live_server.url}/workloads/catalog/pinapps/?project={project.name}")
    page.wait_for_selector("#id_document")
    page.fill("#id_document", dump_document(document))
    page.wait_for_function(
        "() => document.querySelector(\"#form-pane [name='f~metadata~name']\")?.value === 'root-app'", timeout=10_000
    )  # the form followed the YAML
    page.click("#create-button")
    refusal = page.wait_for_selector("#refusal")
    assert refusal.get_attribute("data-status") == "400"
    problem = page.wait_for_selector("#sync-status [data-problem*='privileged']")
    assert problem.get_attribute("data-problem") == "spec.template.containers[0].securityContext.privileged"
    assert "privileged" in problem.inner_text()
    assert "privileged: true" in page.input_value("#id_document")  # the YAML is kept to fix
    shot(page, screenshot_dir, "9-privileged-refused")
    page.locator("#sync-status").screenshot(path=str(screenshot_dir / "journey-10-privileged-field.png"))

    assert page.url == f"{live_server.url}/workloads/catalog/pinapps/?project={project.name}"
    with pytest.raises(NotFound):
        host.get("PinApp", project.namespace, "root-app")
    cache = runtime.host_cache()
    assert cache is None or cache.get(KINDS["PinApp"].plural, project.namespace, "root-app") is None
