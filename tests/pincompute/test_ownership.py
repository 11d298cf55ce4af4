"""The on-call contact and links: one check for a project and for a workload's annotations (validate, the host's
admission webhook on an annotate-only update), and a workload's ownership defaulting to its project's."""

from __future__ import annotations

import json

import pytest

from pincompute.errors import FieldError, NotFound
from pincompute.operator.webhook.review import answer
from pincompute.ownership import (
    LINKS_ANNOTATION,
    MAX_LINKS,
    ONCALL_ANNOTATION,
    Link,
    Ownership,
    oncall_problem,
    parse_links,
    workload_ownership,
)
from pincompute.runtime import load_profile
from pincompute.specs import validate
from tests.support.examples import example

PROJECT = Ownership("ads", "#ads-oncall", (Link("runbook", "Runbook", "https://wiki.example.com/ads"),))


@pytest.mark.parametrize(
    "value", ["", "ads-oncall@example.com", "@ads-oncall", "#ads.oncall", "https://pager.example.com/schedules/ads"]
)
def test_the_three_forms_of_an_oncall_contact_pass(value):
    assert oncall_problem(value) is None


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("ads oncall", "is not an on-call contact"),
        ("ftp://pager.example.com", "is not an on-call contact"),
        ("https://", "with a host"),
        ("@", "is not an on-call contact"),
        ("x" * 201, "at most 200"),
    ],
)
def test_anything_else_is_refused_with_the_forms_we_take(value, says):
    assert says in (oncall_problem(value) or "")


def test_every_bad_link_is_named_by_its_index_and_field():
    errors: list[FieldError] = []
    raw = [
        {"kind": "docs", "title": "Docs", "url": "https://docs.example.com"},
        {"kind": "wiki", "title": "", "url": "javascript:alert(1)"},
        {"title": "Creds", "url": "https://me:secret@example.com/", "colour": "red"},
    ]

    links = parse_links(raw, "links", errors)

    assert links == (Link("docs", "Docs", "https://docs.example.com"),)
    paths = [e.path for e in errors]
    assert paths == ["links[1].kind", "links[1].title", "links[1].url", "links[2].colour", "links[2].url"]
    assert "http:// or https://" in errors[2].message and "user or password" in errors[4].message


def test_the_number_of_links_is_bounded():
    errors: list[FieldError] = []
    parse_links([{"title": "t", "url": "https://a.example"}] * (MAX_LINKS + 1), "links", errors)
    assert errors == [FieldError("links", f"Give at most {MAX_LINKS} links.")]


def _annotated(**annotations: str) -> dict:
    document = example("PinApp")
    document["metadata"]["annotations"] = annotations
    return document


def test_validation_refuses_bad_ownership_annotations_naming_the_annotation():
    bad = _annotated(**{ONCALL_ANNOTATION: "call bob", LINKS_ANNOTATION: '[{"title": "x", "url": "ftp://x"}]'})
    unparsable = _annotated(**{LINKS_ANNOTATION: "[not json"})

    paths = {e.path for e in validate(bad)}

    assert f"metadata.annotations.{ONCALL_ANNOTATION}" in paths
    assert f"metadata.annotations.{LINKS_ANNOTATION}[0].url" in paths
    assert [e.path for e in validate(unparsable)] == [f"metadata.annotations.{LINKS_ANNOTATION}"]
    links = json.dumps([{"kind": "dashboard", "title": "Grafana", "url": "http://grafana.example.com/d/1"}])
    assert validate(_annotated(**{ONCALL_ANNOTATION: "ads@example.com", LINKS_ANNOTATION: links})) == []


def test_a_workload_takes_what_it_leaves_unset_from_its_project():
    plain = example("PinApp")
    plain["spec"].pop("team", None)
    own = _annotated(**{ONCALL_ANNOTATION: "@search-oncall"})
    own["spec"]["team"] = "search"

    inherited = workload_ownership(plain, PROJECT)
    mixed = workload_ownership(own, PROJECT)

    assert inherited == Ownership("ads", "#ads-oncall", PROJECT.links, ("team", "oncall", "links"))
    assert mixed == Ownership("search", "@search-oncall", PROJECT.links, ("links",))


def _update(old: dict, new: dict) -> dict:
    return {"uid": "u", "operation": "UPDATE", "namespace": "proj-x", "object": new, "oldObject": old, "userInfo": {}}


def test_kubectl_annotate_gets_the_same_check_and_nothing_else_is_judged():
    old = example("PinApp")

    def unreadable(_ns: str):
        raise NotFound("the host is not read for an update that keeps the spec")

    bad = answer(_update(old, _annotated(**{ONCALL_ANNOTATION: "call bob"})), unreadable, load_profile())
    good = answer(_update(old, _annotated(**{ONCALL_ANNOTATION: "@bob"})), unreadable, load_profile())

    assert not bad.allowed and bad.causes[0][0] == f"metadata.annotations.{ONCALL_ANNOTATION}"
    assert "is not an on-call contact" in bad.message
    assert good.allowed
