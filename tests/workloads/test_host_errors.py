"""The host module's mapping of the apiserver's refusals to the error taxonomy, whatever the body says: a 400 or
422 without ``details.causes`` (a bad name in the path) is an ``Invalid`` about the whole request, never a
TypeError; and a name no object can have is absent without a round trip."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from base.errors import Conflict, Invalid, NotFound
from pincompute.errors import FieldError
from workloads import host


def refusal(status: int, body: Any, reason: str = "Bad Request") -> ApiException:
    exc = ApiException(status=status, reason=reason)
    exc.body = body if isinstance(body, str | bytes) or body is None else json.dumps(body)
    return exc


NAME_INVALID = {
    "kind": "Status",
    "status": "Failure",
    "message": "Name parameter invalid: \"%\": may not contain '%'",
    "reason": "BadRequest",
    "code": 400,
}


@pytest.mark.parametrize(
    "body",
    [
        NAME_INVALID,
        {**NAME_INVALID, "details": {"name": "%"}},
        {**NAME_INVALID, "details": {"causes": None}},
        {**NAME_INVALID, "details": None},
    ],
)
def test_a_400_without_causes_is_invalid_about_the_whole_request(body):
    mapped = host._mapped(refusal(400, body), "read PinApp/%")

    assert isinstance(mapped, Invalid) and mapped.status == 400
    assert mapped.fields == ()
    assert "Name parameter invalid" in mapped.message and mapped.message.startswith("read PinApp/%")


@pytest.mark.parametrize("body", [None, "", "<html>bad gateway</html>", "[1, 2]", '"a string"', b"\xff", "null"])
def test_a_400_whose_body_is_not_a_status_is_invalid_with_the_reason(body):
    mapped = host._mapped(refusal(422, body, reason="Unprocessable Entity"), "update PinApp/web")

    assert isinstance(mapped, Invalid) and mapped.fields == ()
    assert "Unprocessable Entity" in mapped.message


def test_a_422_names_each_cause_and_skips_malformed_ones():
    body = {
        "message": 'PinApp.pincompute.io "web" is invalid',
        "details": {
            "causes": [
                {"field": "spec.replicas", "message": "must be at least 0"},
                {"message": "no field"},
                "not a cause",
            ]
        },
    }

    mapped = host._mapped(refusal(422, body), "update PinApp/web")

    assert isinstance(mapped, Invalid)
    assert mapped.fields == (FieldError("spec.replicas", "must be at least 0"), FieldError("document", "no field"))


def test_404_and_409_keep_their_meaning():
    assert isinstance(host._mapped(refusal(404, {}), "read PinApp/web"), NotFound)
    conflict = host._mapped(refusal(409, {"message": "the object has been modified"}), "update PinApp/web")
    assert isinstance(conflict, Conflict) and "the object has been modified" in conflict.message
    assert host._mapped(refusal(500, {}), "read PinApp/web") is None


@pytest.mark.parametrize("name", ["%", "Web", "a" * 254, "web\n", "", "../x"])
def test_a_name_no_object_can_have_is_absent_without_asking_the_host(monkeypatch, name):
    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the host's apiserver was asked")

    monkeypatch.setattr(host, "_call", never)

    with pytest.raises(NotFound):
        host.get("PinApp", "proj-ads", name)
    with pytest.raises(NotFound):
        host.patch("PinApp", "proj-ads", name, {"spec": {}})
    with pytest.raises(NotFound):
        host.delete("PinApp", "proj-ads", name)


@pytest.mark.parametrize("name", ["web", "web-1", "a.b-c", ".".join(["a" * 63] * 4)[:253]])
def test_object_names(name):
    assert host.object_name(name)
