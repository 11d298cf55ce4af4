"""The bootstrap runs with the system Python before any dependency exists, and asks the build script
(not a copy of its list) which binaries are missing."""

import os
import subprocess
import sys
from pathlib import Path

from devtools import bootstrap
from devtools.progress import dev_steps

ROOT = Path(__file__).resolve().parents[2]


def test_bootstrap_imports_only_the_standard_library():
    code = (
        f"import sys; before = set(sys.modules); sys.path.insert(0, {str(ROOT)!r}); import devtools.bootstrap; "
        "print(sorted({m.split('.')[0] for m in set(sys.modules) - before} - set(sys.stdlib_module_names)))"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['devtools']"


def test_the_build_script_lists_missing_binaries_in_build_order_without_building(tmp_path):
    env = {**os.environ, "PINCONSOLE_CACHE": str(tmp_path)}
    script = [str(bootstrap.BUILD_SCRIPT)]
    missing = subprocess.run(["bash", *script, "missing"], env=env, capture_output=True, text=True, check=True)
    bindir = Path(
        subprocess.run(["bash", *script, "bindir"], env=env, capture_output=True, text=True, check=True).stdout.strip()
    )
    (bindir / "etcd").write_text("#!/bin/sh\n")
    (bindir / "etcd").chmod(0o755)
    after = subprocess.run(["bash", *script, "missing"], env=env, capture_output=True, text=True, check=True)

    assert missing.stdout.split() == [
        "dex",
        "etcd",
        "kwok",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "kubectl",
        "helm",  # the chart tests' (tests/deploy), kept in bin/helm-<version>/
        "victoria-logs",  # the log archive, kept in bin/victorialogs-<version>/
        "mailpit",  # the SMTP server, kept in bin/mailpit-<version>/
    ]
    assert "etcd" not in after.stdout.split()
    assert bindir.parent == tmp_path / "bin"


def test_the_dev_plan_names_what_runs_after_the_bootstrap():
    plan = bootstrap.plan("dev", ["--port", "8001"])

    assert plan[:4] == ["system packages", "python packages (.venv)", "npm packages", "front-end build"]
    assert plan[4:] == dev_steps()
    assert plan[4:7] == ["database", "portal", "control-plane binaries"]  # the portal before any Go build
    assert bootstrap.plan("dev", ["--no-clusters"])[4:] == ["database", "portal"]
    assert bootstrap.plan("test", [])[4:] == ["control-plane binaries"]


def test_the_dev_command_builds_only_what_its_clusters_run(tmp_path):
    env = {**os.environ, "PINCONSOLE_CACHE": str(tmp_path)}
    done = subprocess.run(
        ["bash", str(bootstrap.BUILD_SCRIPT), "missing", "dev"], env=env, capture_output=True, text=True, check=True
    )

    assert done.stdout.split() == [
        "etcd",
        "kwok",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "victoria-logs",  # the log archive the pod supervisors ship to
        "mailpit",  # the SMTP server the portal mails to
    ]
