"""Workload documents from users: hostile YAML is refused quickly with memory bounded, and named."""

import time

import pytest
import yaml.scanner
from hypothesis import given, settings
from hypothesis import strategies as st

from base.errors import Invalid
from pincompute.documents import MAX_BYTES, load_document
from workloads.documents import dump_document

BOMB = """
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: [*f,*f,*f,*f,*f,*f,*f,*f,*f]
"""


def refusal(text):
    with pytest.raises(Invalid) as caught:
        load_document(text)
    assert caught.value.status == 400 and caught.value.fields[0].path == "document"
    return str(caught.value)


def test_yaml_and_json_objects_are_read():
    assert load_document("kind: PinPod\nspec: {replicas: 2}\n") == {"kind": "PinPod", "spec": {"replicas": 2}}
    assert load_document(b'{"kind": "PinApp"}') == {"kind": "PinApp"}
    assert load_document(dump_document({"b": 1, "a": [1, 2]})) == {"b": 1, "a": [1, 2]}


def test_libyaml_reads_an_ordinary_document_and_pyyaml_only_what_libyaml_refused(monkeypatch):
    """libyaml is five times faster (``bench/document_reader.py``); PyYAML's scanner reads what libyaml refuses, such as
    an escaped surrogate pair, and words the refusals."""
    scanned = []
    scanner_init = yaml.scanner.Scanner.__init__
    monkeypatch.setattr(yaml.scanner.Scanner, "__init__", lambda self: scanned.append(1) or scanner_init(self))
    assert load_document("kind: PinPod\nspec: {replicas: 2, args: [a, 'b']}\n")["spec"]["args"] == ["a", "b"]
    assert load_document('{"name": "caf\\u00e9"}') == {"name": "caf\u00e9"}
    assert scanned == []
    assert load_document('{"emoji": "\\ud83d\\ude00"}') == {"emoji": "\U0001f600"}
    assert "line 1" in refusal("a: [1, 2")
    assert scanned == [1, 1]


def test_a_yaml_bomb_is_refused_at_its_first_alias_without_expanding_it():
    started = time.perf_counter()
    message = refusal(BOMB)
    assert "aliases" in message and "line 3" in message
    assert time.perf_counter() - started < 1


def test_a_20_mb_body_is_refused_before_it_is_parsed():
    started = time.perf_counter()
    assert f"the limit is {MAX_BYTES}" in refusal("a: " + "x" * (20 * 1024 * 1024))
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("- a\n- b\n", "got list"),
        ("just text", "got str"),
        ("", "empty"),
        ("a: 1\n---\nb: 2\n", "single document"),
        ("a: [1, 2", "line 1"),
        ("[" * 100 + "]" * 100, "nested more than"),
        ("!!python/object:os.system {}", "not valid YAML"),
    ],
)
def test_non_objects_and_broken_documents_are_refused_with_the_reason(text, said):
    assert said in refusal(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300) | st.binary(max_size=300))
def test_any_input_is_an_object_or_a_400_never_anything_else(text):
    try:
        assert isinstance(load_document(text), dict)
    except Invalid as exc:
        assert exc.status == 400


def test_the_request_id_a_create_marks_its_object_with_is_not_part_of_what_users_edit():
    from workloads.documents import REQUEST_ANNOTATION, editable

    obj = {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinApp",
        "metadata": {"name": "web", "annotations": {REQUEST_ANNOTATION: "r-1", "team/owner": "ads"}},
        "spec": {},
    }
    only_ours = {**obj, "metadata": {"name": "web", "annotations": {REQUEST_ANNOTATION: "r-1"}}}

    assert editable(obj)["metadata"] == {"name": "web", "annotations": {"team/owner": "ads"}}
    assert editable(only_ours)["metadata"] == {"name": "web"}
    assert REQUEST_ANNOTATION in obj["metadata"]["annotations"]  # the object itself is left as it is
