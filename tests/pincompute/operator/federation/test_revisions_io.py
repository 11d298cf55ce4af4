"""``ensure_revision``: admission numbers each accepted spec; the propagator, which may still apply the
previously admitted spec while a newer admission's status is on its way, never renumbers (that race made
every change three revisions: the journey's timeline lost "Revision 1 accepted" after two edits)."""

from __future__ import annotations

from typing import Any

from pincompute.operator.federation.revisions_io import ensure_revision


class _Kube:
    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}

    def apply(self, manifest: dict[str, Any], _resource: Any) -> dict[str, Any]:
        self.objects[manifest["metadata"]["name"]] = manifest
        return manifest

    def get(self, _resource: Any, _namespace: str, name: str) -> dict[str, Any]:
        return self.objects[name]

    def delete(self, _resource: Any, _namespace: str, name: str) -> None:
        self.objects.pop(name, None)


class _Host:
    """The two things ``ensure_revision`` reads and writes: the revisions and the apiserver."""

    def __init__(self) -> None:
        self.kube = _Kube()

    def revisions(self, _kind: str, _name: str, _namespace: str) -> list[dict[str, Any]]:
        return list(self.kube.objects.values())

    def remember(self, _obj: dict[str, Any]) -> None:
        pass


def _app(replicas: int) -> dict[str, Any]:
    meta = {"name": "web", "namespace": "proj-ads", "uid": "u-1"}
    return {"apiVersion": "pincompute.io/v1", "kind": "PinApp", "metadata": meta, "spec": {"replicas": replicas}}


def _numbers(host: _Host) -> dict[int, int]:
    return {r["data"]["spec"]["replicas"]: r["revision"] for r in host.kube.objects.values()}


def test_the_propagator_applying_the_previous_admitted_spec_does_not_renumber_it() -> None:
    host = _Host()
    ensure_revision(host, _app(2))  # admission of the first spec
    ensure_revision(host, _app(4))  # admission of the scale
    ensure_revision(host, _app(2), renumber=False)  # the propagator, before the new admission's status lands
    ensure_revision(host, _app(4), renumber=False)  # and after
    assert _numbers(host) == {2: 1, 4: 2}


def test_admission_of_an_earlier_spec_makes_it_the_newest_revision() -> None:
    host = _Host()
    for replicas in (2, 4, 2):  # a rollback to the first spec
        ensure_revision(host, _app(replicas))
    assert _numbers(host) == {2: 3, 4: 2}


def test_the_propagator_creates_a_missing_revision_as_the_newest() -> None:
    host = _Host()
    ensure_revision(host, _app(2))
    ensure_revision(host, _app(3), renumber=False)  # admitted before admission records were kept
    assert _numbers(host) == {2: 1, 3: 2}
