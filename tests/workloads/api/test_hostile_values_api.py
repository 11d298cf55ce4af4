"""Values a hostile client puts in a workload document, through the API: YAML PyYAML cannot build, quantities
beyond what Python parses and a lone surrogate in a key are each a 400 in the one error body, naming the
document or the field, and nothing is written; never a 500."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from tests.support.workloads_api import DRY_RUN, ONE, error, paths, quiet
from workloads.api.encoded import Encoded, PageJSONRenderer

pytestmark = pytest.mark.django_db
CPU = "spec.containers[0].resources.requests.cpu"
YAML = """apiVersion: pincompute.io/v1
kind: PinPod
metadata:
  name: j1
  labels: {labels}
spec:
  containers:
  - name: c
    image: registry.local/app:1
    resources: {{requests: {{cpu: {cpu}, memory: 1Gi}}}}
"""
HOSTILE = {
    "feb-30": ("{a: 2001-02-30}", '"1"'),
    "month-13": ("{a: 2001-13-45}", '"1"'),
    "year-0": ("{a: 0000-01-01}", '"1"'),
    "offset-99": ("{a: 2001-12-14t21:59:43.10+99:00}", '"1"'),
    "date-key": ("{2001-02-30: a}", '"1"'),
    "5000-digits": ("{a: " + "9" * 5000 + "}", '"1"'),
    "hex-cpu": ("{}", "0x" + "f" * 5000),
    "base-60-cpu": ("{}", ":".join(["59"] * 3000)),
    "surrogate-key": ('{"\\ud800": a}', '"1"'),
}


def pin_pod(cpu: Any, labels: dict[str, str] | None = None) -> dict[str, Any]:
    container = {"name": "c", "image": "registry.local/app:1", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}
    metadata = {"name": "j1", "labels": labels or {}}
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinPod",
        "metadata": metadata,
        "spec": {"containers": [container]},
    }


@pytest.mark.parametrize(("labels", "cpu"), HOSTILE.values(), ids=HOSTILE.keys())
def test_yaml_values_pyyaml_cannot_build_are_400_naming_the_document(fake_host, developer, labels, cpu):
    response = quiet(developer).post(DRY_RUN, YAML.format(labels=labels, cpu=cpu), content_type="application/yaml")

    assert list(paths(response)) == ["document"]
    assert fake_host.objects == {}


@pytest.mark.parametrize(("labels", "cpu"), HOSTILE.values(), ids=HOSTILE.keys())
def test_a_patch_in_yaml_is_refused_the_same_way_and_changes_nothing(web, developer, labels, cpu):
    before = copy.deepcopy(web.objects)
    patch = f"metadata:\n  labels: {labels}\nspec:\n  replicas: {cpu}\n"

    response = quiet(developer).patch(ONE, patch, content_type="application/yaml")

    assert list(paths(response)) == ["document"]
    assert web.objects == before


@pytest.mark.parametrize(
    "cpu",
    ["9" * 5000, "0." + "9" * 5000, "9" * 4000 + "Ei", "1" * 65, "1e30", int("9" * 4000), 2**63],
    ids=["5000-digits", "5000-decimals", "4000-digits-Ei", "65-chars", "1e30", "4000-digit-number", "2**63"],
)
def test_a_quantity_beyond_the_bounds_is_400_naming_the_field(fake_host, developer, cpu):
    response = quiet(developer).post(DRY_RUN, pin_pod(cpu), format="json")

    found = paths(response)
    assert list(found) == [CPU]
    assert "64 characters at most" in found[CPU] or "largest quantity" in found[CPU]
    assert len(response.content) < 1000 and fake_host.objects == {}


def test_a_lone_surrogate_in_a_label_key_is_a_400_never_a_500(fake_host, developer):
    raw = json.dumps(pin_pod("1", {"@": "x"})).replace("@", "\\ud800")

    response = quiet(developer).post(DRY_RUN, raw, content_type="application/json")

    assert error(response, 400)["fields"]
    assert all("\\ud800" in f["path"] for f in error(response, 400)["fields"])
    assert fake_host.objects == {}


@pytest.mark.parametrize("method", ["put", "patch"])
def test_a_lone_surrogate_in_a_free_form_value_is_a_400_naming_its_path(web, developer, method):
    before = copy.deepcopy(web.objects)
    document = {"spec": {"template": {"containers": [{"name": "app", "args": ["@"]}]}}}
    raw = json.dumps(
        document
        if method == "patch"
        else {"apiVersion": "pincompute.io/v1", "kind": "PinApp", "metadata": {"name": "web"}, **document}
    )

    response = getattr(quiet(developer), method)(ONE, raw.replace("@", "\\udfff"), content_type="application/json")

    assert [f["path"] for f in error(response, 400)["fields"]] == ["spec.template.containers[0].args[0]"]
    assert web.objects == before


def test_the_page_renderer_escapes_a_lone_surrogate_rather_than_fail():
    spliced = {"next": None, "results": Encoded([{"a": "\ud800"}], ['{"a":"\ud800"}'])}

    rendered = PageJSONRenderer().render(spliced)
    plain = PageJSONRenderer().render({"detail": "x\udc00"})

    assert json.loads(rendered) == {"next": None, "results": [{"a": "\ud800"}]}
    assert json.loads(plain) == {"detail": "x\udc00"}
