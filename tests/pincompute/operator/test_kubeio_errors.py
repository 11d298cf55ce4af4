"""The operator's classification of apiserver errors: the taxonomy's own classes, so status, code and close code
say what the error is (a 404 is the taxonomy's NotFound, not a 500 with a look-alike name)."""

from __future__ import annotations

import json

from kubernetes.client.exceptions import ApiException

from pincompute import errors
from pincompute.operator.kubeio import AdmissionRefused, classify


def refusal(status: int, reason: str, body: dict[str, object] | None = None) -> ApiException:
    exc = ApiException(status=status, reason=reason)
    exc.body = json.dumps(body or {})
    return exc


def test_a_404_is_the_taxonomys_not_found():
    mapped = classify(refusal(404, "Not Found", {"reason": "NotFound", "message": 'pods "web-0" not found'}))

    assert isinstance(mapped, errors.NotFound)
    assert (mapped.status, mapped.code, mapped.close_code) == (404, "not_found", 4404)
    assert 'pods "web-0" not found' in mapped.message


def test_an_admissions_403_is_admission_refused_with_the_members_own_words_and_rbacs_is_not():
    said = 'pods "notebook" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true'
    denied = 'pods "notebook" is forbidden: User "system:serviceaccount:ops:op" cannot patch resource "pods"'

    refused = classify(refusal(403, "Forbidden", {"reason": "Forbidden", "message": said}))
    rbac = classify(refusal(403, "Forbidden", {"reason": "Forbidden", "message": denied}))

    assert isinstance(refused, AdmissionRefused) and refused.said == said
    assert isinstance(rbac, errors.PermanentError) and not isinstance(rbac, AdmissionRefused)
