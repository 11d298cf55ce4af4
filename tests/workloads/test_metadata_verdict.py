"""``metadata.labels`` and ``metadata.annotations`` are checked by the core's validation as the Kubernetes
apiserver checks them (apimachinery ``ValidateLabels`` and ``ValidateAnnotations``): keys are qualified names
(an optional DNS-1123 subdomain prefix of at most 253 characters and '/', then a name of at most 63 characters:
alphanumerics at both ends, '-', '_', '.' inside; case does not matter for annotations), values are strings, and
the annotations total at most 256 KiB (keys and values, in UTF-8 bytes). The page's preview and create, the API's
dry run and create all run that validation, so they give one verdict, with the field path, before anything is
written (the API's side is ``tests/workloads/api/test_metadata_dry_run.py``)."""

from __future__ import annotations

import html

import pytest
import yaml

from pincompute.errors import SpecInvalid
from pincompute.specs import validate
from tests.support.kinds import *  # noqa: F403
from tests.support.kinds import (
    host,  # noqa: F401
    posted,
)
from workloads.examples import example
from workloads.preview import preview

HX = {"HTTP_HX_REQUEST": "true"}
LIMIT = 256 * 1024
URL = "/workloads/catalog/pinpods/"


def document(**metadata: object) -> dict:
    doc = example("PinPod", project="ads")
    doc["metadata"].update(metadata)
    return doc


def errors(**metadata: object) -> dict[str, str]:
    return {e.path: e.message for e in validate(document(**metadata)) if e.path.startswith("metadata")}


@pytest.mark.parametrize(
    "key",
    [
        "a",
        "x-y_z.1",
        "example.com/MyName",
        "Example.COM/MyName",  # annotations: the rule is the qualified name's, case aside
        "pincompute.io/replace-placement",
        "a" * 63,
        "b" * 253 + "/" + "c" * 63,
        "kubectl.kubernetes.io/last-applied-configuration",
    ],
)
def test_annotation_keys_kubernetes_takes_are_taken(key):
    assert errors(annotations={key: "v"}) == {}


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("x y", "name part must consist of alphanumeric characters"),
        ("x-<b>k</b>", "prefix part must be a lowercase RFC 1123 subdomain"),
        ("", "name part must not be empty"),
        ("/x", "prefix part must not be empty"),
        ("example.com/", "name part must not be empty"),
        ("a/b/c", "a qualified name must consist of"),
        ("-a", "must start and end with an alphanumeric character"),
        ("a.", "must start and end with an alphanumeric character"),
        ("é", "name part must consist of alphanumeric characters"),
        ("a" * 64, "name part must be no more than 63 characters"),
        ("b" * 254 + "/c", "prefix part must be no more than 253 characters"),
        ("ex_ample.com/c", "prefix part must be a lowercase RFC 1123 subdomain"),
        ("a\n", "name part must consist of alphanumeric characters"),
    ],
    ids=repr,
)
def test_annotation_keys_kubernetes_refuses_are_refused_with_their_path(key, says):
    found = errors(annotations={key: "v"})

    assert list(found) == [f"metadata.annotations.{key}"]
    assert says in found[f"metadata.annotations.{key}"]


@pytest.mark.parametrize(("value", "got"), [(5, "a number"), (True, "a boolean"), (None, "nothing"), ([], "a list")])
def test_annotation_values_are_strings(value, got):
    assert errors(annotations={"n": value, "ok": ""}) == {"metadata.annotations.n": f"must be a string, got {got}"}


def test_annotation_keys_are_strings():
    assert errors(annotations={5: "v"}) == {"metadata.annotations.5": "keys must be strings, got a number"}


def test_the_annotations_total_at_most_256_kib_in_utf8_bytes():
    assert errors(annotations={"k": "v" * (LIMIT - 1)}) == {}
    assert errors(annotations={"k": "v" * LIMIT}) == {
        "metadata.annotations": "the annotations take 262145 bytes (keys and values, UTF-8); "
        "Kubernetes takes at most 262144 (256 KiB)"
    }
    two_bytes_each = "é" * (LIMIT // 2)  # 131072 characters, 262144 bytes
    assert "metadata.annotations" in errors(annotations={"k": two_bytes_each})


def test_label_keys_follow_the_same_rule_without_folding_case():
    assert errors(labels={"example.com/app": "web"}) == {}
    assert list(errors(labels={"/app": "web"})) == ["metadata.labels./app"]
    assert list(errors(labels={"Example.com/app": "web"})) == ["metadata.labels.Example.com/app"]
    assert list(errors(labels={"app": "has space"})) == ["metadata.labels.app"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("annotations", "path"),
    [
        ({"x y": "v"}, "metadata.annotations.x y"),
        ({"x-<b>k</b>": "v"}, "metadata.annotations.x-<b>k</b>"),
        ({"n": 5}, "metadata.annotations.n"),
        ({"big": "v" * LIMIT}, "metadata.annotations"),
    ],
    ids=["space", "html", "number", "over-256KiB"],
)
def test_the_page_preview_and_create_refuse_what_submit_refuses(
    host,  # noqa: F811
    granted,
    developer,
    client,
    annotations,
    path,
):
    client.force_login(developer)
    doc = document(name="annotated", annotations=annotations)
    with pytest.raises(SpecInvalid) as refused:
        preview(granted, doc, actor=developer)
    assert path in {e.path for e in refused.value.errors}
    data = posted(html.unescape(client.get(URL).content.decode()), source="yaml")
    data |= {"document": yaml.safe_dump(doc, sort_keys=False), "project": "ads"}

    previewed = client.post(f"{URL}preview/", data, **HX)
    created = client.post(f"{URL}create/", data, **HX)

    assert previewed.status_code == 400 and path in html.unescape(previewed.content.decode())
    assert created.status_code == 400 and path in html.unescape(created.content.decode()) and not host
