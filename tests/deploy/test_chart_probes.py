"""The probes the chart gives every component, run where they can be: the beat's heartbeat check against the real
scheduler's file, the operator's HTTP probes on the port its arguments name (the endpoints themselves:
tests/pincompute/operator/test_health.py), the worker's ping of its own name."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from celery import Celery

from console.beat import HeartbeatScheduler
from tests.support.helm import Render, by_kind


def _container(render: Render, component: str) -> dict:
    return by_kind(render(), "Deployment")[f"pc-pinconsole-{component}"]["spec"]["template"]["spec"]["containers"][0]


def test_beats_probes_pass_while_it_ticks_and_fail_once_its_heartbeat_is_stale(render: Render, tmp_path: Path):
    beat = _container(render, "beat")
    schedule = next(a.removeprefix("--schedule=") for a in beat["args"] if a.startswith("--schedule="))
    assert "--scheduler=console.beat:HeartbeatScheduler" in beat["args"]
    probe = beat["readinessProbe"]["exec"]["command"]
    assert probe == beat["livenessProbe"]["exec"]["command"]
    local = [part.replace(schedule, str(tmp_path / "celerybeat-schedule")) for part in probe]

    def passes() -> bool:
        return subprocess.run(local, capture_output=True, timeout=30).returncode == 0

    assert not passes()  # no heartbeat yet: beat has not ticked
    app = Celery("heartbeat-test", set_as_current=False)
    scheduler = HeartbeatScheduler(app=app, schedule_filename=str(tmp_path / "celerybeat-schedule"))
    scheduler.tick()
    assert passes()
    stale = time.time() - 121  # beat.heartbeatMaxAgeSeconds is 120
    os.utime(scheduler.heartbeat_path, (stale, stale))
    assert not passes()
    scheduler.close()


def test_the_operators_probes_ask_its_health_endpoints_on_its_metrics_port(render: Render):
    operator = _container(render, "operator")
    ports = {p["name"]: p["containerPort"] for p in operator["ports"]}
    assert f"--metrics-bind-address=0.0.0.0:{ports['metrics']}" in operator["args"]
    assert operator["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert operator["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}


def test_the_worker_is_ready_when_it_answers_a_ping_to_its_own_name(render: Render):
    worker = _container(render, "worker")
    hostname = next(a.removeprefix("--hostname=") for a in worker["args"] if a.startswith("--hostname="))
    ping = worker["readinessProbe"]["exec"]["command"]
    assert ping[:2] == ["sh", "-c"] and "celery -A console inspect ping" in ping[2]
    assert f'--destination "{hostname.replace("$(POD_NAME)", "$POD_NAME")}"' in ping[2]
    assert worker["readinessProbe"]["periodSeconds"] < worker["livenessProbe"]["periodSeconds"]


def test_web_and_operator_are_not_restarted_by_liveness_while_they_start(render: Render):
    """Seen on the real node under load: without a startup probe, liveness restarted pods that were only slow to
    import; the startup probe asks the liveness endpoint and allows minutes before liveness takes over."""
    for component in ("web", "operator"):
        container = _container(render, component)
        startup, live = container["startupProbe"], container["livenessProbe"]
        assert startup["httpGet"] == live["httpGet"]
        assert startup["periodSeconds"] * startup["failureThreshold"] >= 120
