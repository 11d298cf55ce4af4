"""``manage.py dev`` on a machine without control-plane binaries: the portal answers and sign-in works before any
binary is built; the progress page lists every step while the binaries build behind it, then the clusters as they
come up; a failed build shows on the page with its log's tail and the command that runs it again.

The machine state is real but for the compiler: an empty cache dir (no binary, no build tree), the real build
script and the real ``go`` for its module steps; only ``go build``/``go install`` of a control-plane program is
the test's (tests/devtools/fake_go.py): it waits for the test's go-ahead, then copies the binary the suite already
built, or fails as a compile error does."""

import html
import re
import shutil
import sys
from pathlib import Path

import httpx
import pytest

from devtools.localcp.binaries import default_bin_dir, mailpit, victoria_logs
from tests.devtools.dev_process import DevProcess

FAKE_GO = Path(__file__).with_name("fake_go.py")
STEP = re.compile(r'<tr data-step="([^"]+)" data-state="([^"]+)">')


def fresh_machine(tmp_path: Path, *, fail: str = "") -> dict[str, str]:
    """The environment of a machine whose Go builds have not run: an empty PINCONSOLE_CACHE, the test's go first
    on PATH."""
    fake_bin = tmp_path / "fakebin"
    fake_bin.mkdir()
    (fake_bin / "go").write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_GO} "$@"\n')
    (fake_bin / "go").chmod(0o755)
    real_go = shutil.which("go")
    assert real_go, "go is on every machine the suite runs on"
    return {
        "PINCONSOLE_CACHE": str(tmp_path / "cache"),
        "PATH": f"{fake_bin}:{Path(real_go).parent}:/usr/local/bin:/usr/bin:/bin",
        "FAKE_GO_REAL": real_go,
        "FAKE_GO_BINARIES": str(default_bin_dir()),
        "FAKE_GO_VICTORIA_LOGS": str(victoria_logs(build_missing=False)),
        "FAKE_GO_MAILPIT": str(mailpit(build_missing=False)),
        "FAKE_GO_GATE": str(tmp_path / "builds-may-go"),
        "FAKE_GO_FAIL": fail,
    }


def steps_of(page: str) -> dict[str, str]:
    return dict(STEP.findall(page))


@pytest.mark.integration
@pytest.mark.cluster
def test_the_portal_answers_while_the_binaries_build_then_the_clusters_come_up(tmp_path):
    env = fresh_machine(tmp_path)
    with DevProcess(tmp_path, "--nodes", "4", env=env) as dev:
        dev.wait_for_line(r"ready at http", 120)
        http = dev.signed_in()
        dev.wait_for_line(r"\d+/\d+ build etcd: running", 120)
        starting = http.get("/dev/progress/")
        dashboard = http.get("/")
        anonymous = httpx.get(dev.url + "/dev/progress/", timeout=20)  # the page the terminal points a newcomer to

        assert dashboard.status_code == 200 and "Welcome" in dashboard.text
        assert "data-dev-starting" in dashboard.text  # the banner: the clusters are starting
        steps = steps_of(starting.text)
        assert list(steps) == [
            "database",
            "portal",
            "build etcd",
            "build kwok",
            "build kube-apiserver",
            "build kube-controller-manager",
            "build kube-scheduler",
            "build victoria-logs",
            "build mailpit",
            "clusters up",
            "register clusters",
            "CRDs and PriorityClasses",
            "demo data",
            "operator",
            "history recorder",
            "watch caches",
        ], starting.text
        assert steps["database"] == steps["portal"] == "done"
        assert steps["build etcd"] == "running"  # held by the test's go until the gate opens
        assert {steps[t] for t in list(steps)[3:]} == {"pending"}
        assert 'data-state="starting"' in starting.text and 'hx-trigger="every 2s"' in starting.text
        assert "None yet" in starting.text  # no cluster answers yet
        assert anonymous.status_code == 200 and steps_of(anonymous.text)["build etcd"] == "running"

        (tmp_path / "builds-may-go").touch()
        dev.wait_for_line(r"everything is live in", 420)
        live = http.get("/dev/progress/")
        workloads = http.get("/workloads/")
        dashboard = http.get("/")

        assert set(steps_of(live.text).values()) == {"done"}, live.text
        assert 'data-state="live"' in live.text and 'hx-trigger="every 2s"' not in live.text  # polling stops
        assert re.findall(r'data-cluster="([^"]+)"', live.text) and sorted(
            re.findall(r'data-cluster="([^"]+)"', live.text)
        ) == ["host", "member-a", "member-b"]
        assert "ranker" in workloads.text  # the demo workload, read from the members' watch caches
        assert "data-dev-starting" not in dashboard.text
        assert (tmp_path / "cache" / "bin").is_dir() and not (tmp_path / "cache" / "bin" / "helm").exists()
        output = dev.stop()
    assert "stopping local clusters" in output
    assert not list((tmp_path / "cache" / "bin").glob("*/kubectl")) and not list(
        (tmp_path / "cache" / "bin").glob("*/dex")
    )  # the dev command builds what its clusters run, no more
    assert dev.leftovers() == ""


@pytest.mark.integration
def test_a_failed_build_shows_its_log_tail_and_the_command_to_retry_while_the_portal_serves_on(tmp_path):
    env = fresh_machine(tmp_path, fail="etcd")
    (tmp_path / "builds-may-go").touch()
    with DevProcess(tmp_path, "--nodes", "4", env=env) as dev:
        dev.wait_for_line(r"build etcd: FAILED after", 180)
        http = dev.signed_in()
        page = http.get("/dev/progress/")
        dashboard = http.get("/")
        output = dev.stop()

    steps = steps_of(page.text)
    assert steps["build etcd"] == "failed" and steps["build kwok"] == steps["clusters up"] == "pending"
    assert 'data-state="failed"' in page.text and 'hx-trigger="every 2s"' not in page.text  # polling stops
    assert 'data-failed-step="build etcd"' in page.text
    tail = html.unescape(re.search(r"<pre[^>]*data-log-tail>(.*?)</pre>", page.text, re.S).group(1))
    assert "undefined: fakeSymbol" in tail
    retry = html.unescape(re.search(r"<pre[^>]*data-retry>(.*?)</pre>", page.text, re.S).group(1))
    assert retry == "bash devtools/localcp/build_binaries.sh etcd"
    assert "python3 manage.py dev" in page.text  # then the whole command again
    assert "data-dev-starting" in dashboard.text and "failed" in dashboard.text
    # the terminal says the same: the failure, the tail and the retry command
    assert "undefined: fakeSymbol" in output and "retry: bash devtools/localcp/build_binaries.sh etcd" in output
    assert dev.leftovers() == ""
