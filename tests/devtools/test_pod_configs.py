"""The local stack's pods get what a kubelet gives a container from its Secrets and ConfigMaps
(devtools/localcp/pods/podconfigs.py): variables in Kubernetes' order of precedence, files at their mount paths and
never outside the pod's root."""

from __future__ import annotations

from pathlib import Path

from devtools.localcp.pods import podconfigs

HELD = {("Secret", "db"): {"password": "pw", "user": "app"}, ("ConfigMap", "settings"): {"MODE": "fast"}}


class Held(podconfigs.ConfigReader):
    """The namespace's objects as the member would answer them."""

    def __init__(self) -> None:
        super().__init__(None, "proj-a")  # type: ignore[arg-type] - reads are answered from HELD

    def _read(self, kind: str, name: str) -> dict[str, str] | None:
        return HELD.get((kind, name))


POD = {"metadata": {"name": "web-1", "namespace": "proj-a"}}


def test_variables_come_from_env_from_then_env_which_wins():
    container = {
        "envFrom": [{"configMapRef": {"name": "settings"}}, {"secretRef": {"name": "db"}, "prefix": "DB_"}],
        "env": [
            {"name": "MODE", "value": "slow"},
            {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
            {"name": "MISSING", "valueFrom": {"secretKeyRef": {"name": "nope", "key": "k", "optional": True}}},
            {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        ],
    }

    env = dict(podconfigs.container_env(Held(), container, POD))

    assert env == {"MODE": "slow", "DB_password": "pw", "DB_user": "app", "PASSWORD": "pw", "POD": "web-1"}


def test_a_mount_path_stays_inside_the_pods_root(tmp_path: Path):
    fs = tmp_path / "fs"
    (fs / "etc").mkdir(parents=True)
    (fs / "bin").symlink_to("usr/bin")

    assert podconfigs._inside(fs, "/etc/db", "password") == fs / "etc/db/password"
    # ".." stops at the pod's root, as in a container's own mount namespace
    assert podconfigs._inside(fs, "/etc/db", "../../../outside") == fs / "outside"
    assert podconfigs._inside(fs, "/../../..", "x") == fs / "x"
    assert podconfigs._inside(fs, "/bin/db", "x") is None  # through a symlink
    assert podconfigs._inside(fs, "/", "") is None
