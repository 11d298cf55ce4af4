"""The one mapping of a failed Kubernetes API call to the taxonomy: by the Status body's reason when it names one
here, else by the HTTP status; temporary failures carry the apiserver's Retry-After."""

from __future__ import annotations

import json

import pytest
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import NewConnectionError, ProtocolError

from pincompute import errors
from pincompute.kube.apierrors import service_error, status_message


def refusal(status: int, reason: str = "", body: object = None, headers: dict[str, str] | None = None) -> ApiException:
    exc = ApiException(status=status, reason=reason or "x")
    exc.body = json.dumps(body) if body is not None else None
    exc.headers = headers
    return exc


@pytest.mark.parametrize(
    ("status", "reason", "kind"),
    [
        (404, "NotFound", errors.NotFound),
        (409, "AlreadyExists", errors.Conflict),
        (409, "Conflict", errors.Conflict),
        (410, "Expired", errors.Conflict),
        (410, "Gone", errors.Conflict),
        (422, "Invalid", errors.Invalid),
        (400, "BadRequest", errors.Invalid),
        (401, "Unauthorized", errors.PermanentError),
        (403, "Forbidden", errors.PermanentError),
        (429, "TooManyRequests", errors.TemporaryError),
        (500, "InternalError", errors.TemporaryError),
        (503, "ServiceUnavailable", errors.TemporaryError),
        (504, "Timeout", errors.TemporaryError),
    ],
)
def test_a_status_body_maps_by_its_reason_and_status(status, reason, kind):
    mapped = service_error(refusal(status, body={"kind": "Status", "reason": reason, "message": "said"}), "read x")

    assert type(mapped) is kind
    assert mapped.message == f"read x: {status} x: said"


@pytest.mark.parametrize(("status", "kind"), [(404, errors.NotFound), (409, errors.Conflict), (422, errors.Invalid)])
def test_without_a_status_body_the_http_status_decides(status, kind):
    assert type(service_error(refusal(status, body="<html>proxy</html>"))) is kind


def test_the_reason_names_the_class_when_the_status_is_not_a_known_one():
    assert type(service_error(refusal(418, body={"reason": "AlreadyExists"}))) is errors.Conflict


def test_invalid_names_each_cause_as_a_field_error():
    body = {"reason": "Invalid", "details": {"causes": [{"field": "spec.replicas", "message": "must be >= 0"}]}}

    mapped = service_error(refusal(422, body=body))

    assert mapped.fields == (errors.FieldError("spec.replicas", "must be >= 0"),)


def test_throttling_waits_the_apiservers_retry_after_else_the_given_delay():
    throttled = service_error(refusal(429, headers={"Retry-After": "7"}), delay=1.0)
    unhinted = service_error(refusal(503), delay=1.0)

    assert isinstance(throttled, errors.TemporaryError) and throttled.delay == 7.0
    assert isinstance(unhinted, errors.TemporaryError) and unhinted.delay == 1.0


def test_a_tls_failure_is_temporary_but_a_request_that_cannot_be_prepared_is_not():
    assert isinstance(service_error(ApiException(status=0, reason="SSLError\nEOF")), errors.TemporaryError)
    assert isinstance(service_error(ApiException(status=0, reason="Cannot prepare a request")), errors.PermanentError)


@pytest.mark.parametrize(
    "exc",
    [NewConnectionError(None, "HTTPSConnectionPool(host='10.1.2.3', port=6443): refused"), ProtocolError("reset")],
)
def test_transport_errors_are_temporary_and_never_name_the_apiservers_address(exc):
    mapped = service_error(exc, "apply Namespace/a")

    assert isinstance(mapped, errors.TemporaryError)
    assert mapped.message.startswith("apply Namespace/a: ") and "10.1.2.3" not in mapped.message


def test_status_message_is_one_line_with_the_apiservers_message():
    assert (
        status_message(refusal(404, "Not Found", {"message": 'pods "a" not found'}))
        == '404 Not Found: pods "a" not found'
    )
    assert status_message(refusal(502, "Bad Gateway", [1])) == "502 Bad Gateway"
