"""Local Kubernetes control plane (etcd + kube-apiserver + controllers + kwok) and dex, for dev and tests.

No Django imports here: this package is used by the pytest harness, the benchmarks and the dev command.
"""

from .controlplane import LocalControlPlane
from .dex import DexServer
from .layout import ClusterInfo, Layout, read_layout
from .procs import ComponentError

__all__ = ["ClusterInfo", "ComponentError", "DexServer", "Layout", "LocalControlPlane", "read_layout"]
