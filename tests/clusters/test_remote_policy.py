"""The portal's writes to a cluster (``remote.guarded``): the one mapping's answer under the ``written`` policy. No
user input is in such a write, so a refusal needs a human (422) and a concurrent writer means try later (503)."""

from __future__ import annotations

import json

import pytest
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import ProtocolError

from base.errors import Unavailable, Unprocessable
from clusters import remote


def failing(exc: BaseException):
    def call():
        raise exc

    return call


def refusal(status: int, reason: str, message: str = "said") -> ApiException:
    exc = ApiException(status=status, reason=reason)
    exc.body = json.dumps({"kind": "Status", "message": message})
    return exc


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (refusal(409, "Conflict"), Unavailable),
        (refusal(503, "Service Unavailable"), Unavailable),
        (ProtocolError("reset"), Unavailable),
        (refusal(422, "Unprocessable Entity"), Unprocessable),
        (refusal(403, "Forbidden"), Unprocessable),
    ],
)
def test_a_concurrent_writer_or_an_outage_is_unavailable_and_a_refusal_unprocessable(exc, kind):
    with pytest.raises(kind) as raised:
        remote.guarded("apply Namespace/proj-a on member-a", failing(exc))

    assert type(raised.value) is kind
    assert raised.value.message.startswith("apply Namespace/proj-a on member-a: ")


def test_a_404_hints_that_the_platform_is_not_installed_there():
    with pytest.raises(Unprocessable) as raised:
        remote.guarded("apply PinApp/web on member-a", failing(refusal(404, "Not Found", "the server could not find")))

    assert raised.value.message == (
        "apply PinApp/web on member-a: 404 Not Found: the server could not find"
        " (a kind it does not serve? install the platform there: install-crds)"
    )
