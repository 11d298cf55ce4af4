"""values.schema.json: a bad value is refused by `helm template` (and so `helm install`/`upgrade`, which validate the
same way before rendering) with the field's path in the message, and nothing is rendered."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.helm import CHART

BAD = {
    # --set arguments: the path helm names in its refusal
    "mode=bogus": "/mode",
    "web.replicas=abc": "/web/replicas",
    "web.replicas=0": "/web/replicas",
    "web.replica=3": "additional properties 'replica'",
    "operator.metrics.port=70000": "/operator/metrics/port",
    "postgresql.sslmode=sometimes": "/postgresql/sslmode",
    "config.logLevel=LOUD": "/config/logLevel",
    "ingress.host=Portal_Example": "/ingress/host",
    "serviceMonitor.interval=often": "/serviceMonitor/interval",
    "networkPolicy.enabled=maybe": "/networkPolicy/enabled",
    "web.resources.limits.memory=lots": "/web/resources/limits/memory",
    "config.extraEnv.lower_case=x": "/config/extraEnv': additional properties 'lower_case'",
    "config.oidc.caBundle.configMap=IdP_CA": "/config/oidc/caBundle/configMap",
}


@pytest.mark.parametrize(("value", "named"), BAD.items(), ids=BAD.keys())
def test_a_bad_value_is_refused_with_its_field_named(helm: Path, value: str, named: str) -> None:
    args = [str(helm), "template", "pc", str(CHART), "--set", value]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)

    assert done.returncode != 0 and done.stdout == ""
    assert "values don't meet the specifications of the schema" in done.stderr
    assert named in done.stderr, done.stderr


def test_the_member_mode_and_every_option_turned_on_are_accepted(helm: Path) -> None:
    for extra in (["--set", "mode=member"], ["--set", "serviceMonitor.enabled=true,networkPolicy.enabled=true"]):
        done = subprocess.run([str(helm), "template", "pc", str(CHART), *extra], capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
