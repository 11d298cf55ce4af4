"""The federation on the local control plane (defined in tests/support/federation.py): the operator as a real
subprocess, member-b behind a TCP forwarder, projects laid out with the core's own tenancy manifests."""

from tests.support.federation import (  # noqa: F401 - fixtures, used by name
    federation,
    federation_clusters,
    forwarded_kubeconfig,
    project,
)
