"""A fake Kube that records writes and echoes objects back, and a ClusterRuntime over it (watches not started:
tests fill ``cluster.store`` directly, as the list-watch would)."""

import copy
import itertools
import threading

from pincompute.errors import Conflict, NotFound
from pincompute.kinds import KINDS
from pincompute.operator.cluster import ClusterRuntime, Topology
from pincompute.operator.kubeio import NATIVE, AdmissionRefused, cr_resource


class FakeKube:
    name = "member-a"

    def __init__(self):
        self.calls = []
        self.conflicts = 0
        self.crs = {}  # name -> CR, for status patch responses
        self.refuse = {}  # name -> the admission's message: applying that object is refused (a 403)
        self.created = []  # the bodies of create calls (Events)
        self._rv = itertools.count(100)

    def _stamp(self, obj):
        obj = copy.deepcopy(obj)
        obj.setdefault("metadata", {})["resourceVersion"] = str(next(self._rv))
        return obj

    def apply(self, obj, res):
        if self.conflicts:
            self.conflicts -= 1
            raise Conflict("409 AlreadyExists")
        self.calls.append(("apply", obj["kind"], obj["metadata"]["name"]))
        said = self.refuse.get(obj["metadata"]["name"])
        if said:
            raise AdmissionRefused(f"403 Forbidden: {said}", said=said)
        return self._stamp(obj)

    def patch(self, res, namespace, name, body, *, sub=None, strategic=False):
        self.calls.append(("patch" + (f"/{sub}" if sub else ""), res.kind, name, body))
        if sub == "status" and name in self.crs:  # the apiserver returns the whole object
            status = {k: v for k, v in body["status"].items() if v is not None}
            return self._stamp({**self.crs[name], "status": status})
        return self._stamp(
            {
                "apiVersion": res.api_version,
                "kind": res.kind,
                "metadata": {"name": name, "namespace": namespace},
                **body,
            }
        )

    def delete(self, res, namespace, name, *, uid=None, grace_seconds=None):
        self.calls.append(("delete", res.kind, name))

    def create(self, res, namespace, body):
        self.calls.append(("create", res.kind, body["metadata"]["name"]))
        self.created.append(body)
        return body

    def get(self, res, namespace, name):
        raise NotFound(name)

    def writes(self, verb):
        return [c for c in self.calls if c[0] == verb]


def fake_cluster(kube=None, zone="local-1a"):
    kube = kube or FakeKube()
    stop = threading.Event()
    cluster = ClusterRuntime(
        kube,
        lambda key, cause="other", /: None,
        stop,
        instance="test",
        topology=Topology(zone),
        background_events=False,
    )
    cluster.native.update(NATIVE)
    for kind, info in KINDS.items():
        cluster.crs[kind] = cr_resource(kind, info.plural)
    return cluster
