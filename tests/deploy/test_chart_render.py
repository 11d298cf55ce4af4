"""`helm lint` and `helm template` of the chart, with the default values and with production-like ones; the rendered
objects are asserted on after parsing (security contexts, probes, the migration hook, PDBs, ingress, operator)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from pincompute.kinds import KINDS
from tests.support.helm import CHART, PRODUCTION_VALUES, ROOT, Render, by_kind, pod_templates

VALUES = {"default": (), "production": (PRODUCTION_VALUES,)}


@pytest.mark.parametrize("files", VALUES.values(), ids=VALUES.keys())
def test_helm_lint_is_clean(helm: Path, files: tuple[Path, ...]) -> None:
    args = [str(helm), "lint", "--strict", str(CHART)] + [arg for f in files for arg in ("--values", str(f))]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 chart(s) linted, 0 chart(s) failed" in done.stdout


@pytest.mark.parametrize("files", VALUES.values(), ids=VALUES.keys())
def test_every_pod_is_restricted_and_requests_resources(render: Render, files: tuple[Path, ...]) -> None:
    pods = pod_templates(render(*files))
    components = ("web", "worker", "beat", "operator", "migrate", "webhook-cleanup")
    assert set(pods) == {f"pc-pinconsole-{c}" for c in components}
    for name, pod in pods.items():
        sc = pod["securityContext"]
        assert sc["runAsNonRoot"] is True and sc["runAsUser"] != 0, name
        assert sc["seccompProfile"] == {"type": "RuntimeDefault"}, name
        tmp = {v["name"]: v for v in pod["volumes"]}["tmp"]
        assert "emptyDir" in tmp, name
        for container in pod["containers"]:
            csc = container["securityContext"]
            assert csc["readOnlyRootFilesystem"] is True, name
            assert csc["allowPrivilegeEscalation"] is False, name
            assert csc["capabilities"]["drop"] == ["ALL"], name
            assert {"name": "tmp", "mountPath": "/tmp"} in container["volumeMounts"], name
            assert {"cpu", "memory"} <= set(container["resources"]["requests"]), name
            assert "memory" in container["resources"]["limits"], name


def test_web_serves_uvicorn_with_probes_on_readyz_and_healthz(render: Render) -> None:
    web = by_kind(render(), "Deployment")["pc-pinconsole-web"]
    assert web["spec"]["replicas"] == 3
    container = web["spec"]["template"]["spec"]["containers"][0]
    assert container["command"] == ["uvicorn"] and container["args"][0] == "console.asgi:application"
    ready, live = container["readinessProbe"]["httpGet"], container["livenessProbe"]["httpGet"]
    assert (ready["path"], live["path"]) == ("/readyz", "/healthz")
    assert ready["port"] == live["port"] == "http"
    # Django refuses a Host it does not serve and redirects plain HTTP: the probes present the public ones.
    assert {"name": "Host", "value": "portal.example.com"} in ready["httpHeaders"]
    assert {"name": "X-Forwarded-Proto", "value": "https"} in live["httpHeaders"]


def test_worker_and_beat(render: Render) -> None:
    deployments = by_kind(render(), "Deployment")
    worker, beat = deployments["pc-pinconsole-worker"], deployments["pc-pinconsole-beat"]
    assert worker["spec"]["template"]["spec"]["containers"][0]["args"][:3] == ["-A", "console", "worker"]
    worker_container = worker["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in worker_container["env"]}
    # prometheus-client's multiprocess files on a writable emptyDir; the worker's /metrics on its port.
    assert env["PROMETHEUS_MULTIPROC_DIR"] == "/run/prometheus" and env["WORKER_METRICS_ADDRESS"] == "0.0.0.0:9808"
    assert {"name": "metrics", "mountPath": "/run/prometheus"} in worker_container["volumeMounts"]
    assert worker["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"] == "9808"
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"] == {"type": "Recreate"}
    beat_pod = beat["spec"]["template"]["spec"]
    assert "--schedule=/tmp/celerybeat-schedule" in beat_pod["containers"][0]["args"]  # the rootfs is read-only
    assert beat_pod["automountServiceAccountToken"] is False


def test_migration_runs_as_a_hook_before_install_and_upgrade(render: Render) -> None:
    objects = render()
    hooks = {
        (o["kind"], o["metadata"]["name"]): o["metadata"]["annotations"]
        for o in objects
        if "helm.sh/hook" in (o["metadata"].get("annotations") or {})
    }
    cleanup = hooks.pop(("Job", "pc-pinconsole-webhook-cleanup"))  # the other hook: test_chart_options.py
    assert cleanup["helm.sh/hook"] == "pre-delete"
    assert set(hooks) == {
        ("Job", "pc-pinconsole-migrate"),
        ("Secret", "pc-pinconsole-migrate"),
        ("ServiceAccount", "pc-pinconsole-migrate"),
    }
    for hook in hooks.values():
        assert hook["helm.sh/hook"] == "pre-install,pre-upgrade"
    # What the Job needs exists before it: the hook Secret and ServiceAccount have a lower weight.
    job_weight = int(hooks[("Job", "pc-pinconsole-migrate")]["helm.sh/hook-weight"])
    assert int(hooks[("Secret", "pc-pinconsole-migrate")]["helm.sh/hook-weight"]) < job_weight
    job = by_kind(objects, "Job")["pc-pinconsole-migrate"]["spec"]["template"]["spec"]
    assert job["containers"][0]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert job["restartPolicy"] == "Never"


def test_migration_reads_an_existing_secret(render: Render) -> None:
    objects = render(PRODUCTION_VALUES)
    assert "pc-pinconsole-migrate" not in by_kind(objects, "Secret")
    assert not by_kind(objects, "Secret")  # the settings come from secrets.existingSecret
    env = by_kind(objects, "Job")["pc-pinconsole-migrate"]["spec"]["template"]["spec"]["containers"][0]["env"]
    refs = {e["name"]: e["valueFrom"]["secretKeyRef"]["name"] for e in env if "valueFrom" in e}
    assert refs == {"DATABASE_URL": "pinconsole-settings", "SECRET_KEY": "pinconsole-settings"}


def test_pdbs_cover_the_replicated_components(render: Render) -> None:
    objects = render()
    pdbs = by_kind(objects, "PodDisruptionBudget")
    assert pdbs["pc-pinconsole-web"]["spec"]["maxUnavailable"] == 1
    assert pdbs["pc-pinconsole-worker"]["spec"]["maxUnavailable"] == 1
    assert pdbs["pc-pinconsole-operator"]["spec"]["minAvailable"] == 1
    assert "pc-pinconsole-beat" not in pdbs  # one replica by design
    deployments = by_kind(objects, "Deployment")
    for name, pdb in pdbs.items():
        labels = deployments[name]["spec"]["template"]["metadata"]["labels"]
        assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items(), name


@pytest.mark.parametrize("files", VALUES.values(), ids=VALUES.keys())
def test_ingress_keeps_websockets_open(render: Render, files: tuple[Path, ...]) -> None:
    ingress = by_kind(render(*files), "Ingress")["pc-pinconsole"]
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] == "3600"
    assert annotations["nginx.ingress.kubernetes.io/proxy-send-timeout"] == "3600"
    assert annotations["nginx.ingress.kubernetes.io/proxy-http-version"] == "1.1"
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": "pc-pinconsole-web", "port": {"name": "http"}}
    assert ingress["spec"]["tls"][0]["hosts"] == [ingress["spec"]["rules"][0]["host"]]


def test_operator_runs_two_replicas_with_the_federation_and_each_member(render: Render) -> None:
    objects = render(PRODUCTION_VALUES, namespace="platform")
    operator = by_kind(objects, "Deployment")["pc-pinconsole-operator"]
    assert operator["spec"]["replicas"] == 2
    pod = operator["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["command"] == ["python", "-m", "pincompute.operator", "run"]
    args = container["args"]
    assert "--kubeconfig=/etc/pinconsole/members/kubeconfig:/etc/pinconsole/host/kubeconfig" in args
    contexts = [a.removeprefix("--context=") for a in args if a.startswith("--context=")]
    assert contexts == ["use1-a", "use1-b", "use1-c"]
    assert "--zone=use1-b=us-east-1b" in args
    assert {"--host-context=host", "--lease-namespace=platform", "--identity=$(POD_NAME)"} <= set(args)
    assert "--metrics-bind-address=0.0.0.0:9090" in args
    assert pod["serviceAccountName"] == "pc-pinconsole-operator"
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["members-kubeconfig"]["secret"]["secretName"] == "pinconsole-operator-kubeconfig"
    host = by_kind(objects, "ConfigMap")["pc-pinconsole-operator-host"]["data"]["kubeconfig"]
    assert "tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token" in host


def test_settings_are_variables_the_portal_reads(render: Render) -> None:
    """Every key of the settings ConfigMap and Secret is an environment variable console/settings.py reads."""
    read = set(re.findall(r'env_\w+\(\s*"([A-Z0-9_]+)"', (ROOT / "console" / "settings.py").read_text()))
    objects = render(values={"secrets": {"oidcClientSecret": "s", "readyzProbeToken": "t"}})
    config = by_kind(objects, "ConfigMap")["pc-pinconsole-settings"]["data"]
    secret = by_kind(objects, "Secret")["pc-pinconsole-settings"]["stringData"]
    assert set(config) | set(secret) <= read
    assert {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "OIDC_RP_CLIENT_SECRET", "READYZ_PROBE_TOKEN"} == set(secret)
    assert secret["DATABASE_URL"] == "postgres://pinconsole@postgresql:5432/pinconsole?sslmode=prefer"
    prod = by_kind(render(PRODUCTION_VALUES), "ConfigMap")["pc-pinconsole-settings"]["data"]
    assert set(prod) <= read
    assert prod["ALLOWED_HOSTS"] == "portal.example.com,portal.internal.example.com"
    assert prod["OIDC_RP_CLIENT_ID"] == "pinconsole" and prod["DEBUG"] == "false"


def test_the_log_archive_is_an_existing_victorialogs_url(render: Render) -> None:
    values = {"logArchive": {"url": "http://victoria-logs.logging.svc:9428", "timeoutSeconds": 5}}
    config = by_kind(render(values=values), "ConfigMap")["pc-pinconsole-settings"]["data"]
    unset = by_kind(render(), "ConfigMap")["pc-pinconsole-settings"]["data"]
    assert config["LOG_ARCHIVE_URL"] == "http://victoria-logs.logging.svc:9428"
    assert config["LOG_ARCHIVE_TIMEOUT_SECONDS"] == "5" and unset["LOG_ARCHIVE_URL"] == ""


def test_usage_metrics_are_an_existing_prometheus(render: Render) -> None:
    values = {"usageMetrics": {"url": "http://prometheus.monitoring.svc:9090", "scrapeSeconds": 30}}
    config = by_kind(render(values=values), "ConfigMap")["pc-pinconsole-settings"]["data"]
    unset = by_kind(render(), "ConfigMap")["pc-pinconsole-settings"]["data"]
    assert config["PROMETHEUS_URL"] == "http://prometheus.monitoring.svc:9090"
    assert config["PROMETHEUS_SCRAPE_SECONDS"] == "30" and unset["PROMETHEUS_URL"] == ""


def test_database_and_redis_urls_quote_passwords(render: Render) -> None:
    values = {"postgresql": {"password": "p@ss/word"}, "redis": {"password": "r:s", "tls": True, "db": 2}}
    secret = by_kind(render(values=values), "Secret")["pc-pinconsole-settings"]["stringData"]
    assert secret["DATABASE_URL"] == "postgres://pinconsole:p%40ss%2Fword@postgresql:5432/pinconsole?sslmode=prefer"
    assert secret["REDIS_URL"] == "rediss://:r%3As@redis:6379/2"


def test_rbac_names_every_workload_kind_of_the_core(render: Render) -> None:
    roles = by_kind(render(), "ClusterRole")
    plurals = {info.plural for info in KINDS.values()}
    assert set(roles["pc-pinconsole-portal"]["rules"][0]["resources"]) == plurals
    assert set(roles["pc-pinconsole-operator"]["rules"][0]["resources"]) == plurals
    member = by_kind(render(values={"mode": "member"}), "ClusterRole")
    assert set(member["pc-pinconsole-operator-member"]["rules"][0]["resources"]) == plurals


def test_the_portal_on_a_member_may_add_debug_containers_and_write_nothing_else_of_a_pod(render: Render) -> None:
    role = by_kind(render(values={"mode": "member"}), "ClusterRole")["pc-pinconsole-portal-member"]
    granted = {(res, verb) for rule in role["rules"] for res in rule["resources"] for verb in rule["verbs"]}
    assert ("pods/ephemeralcontainers", "patch") in granted
    assert not {("pods", verb) for verb in ("create", "update", "patch", "delete")} & granted


def test_member_mode_renders_only_identities_and_rbac(render: Render) -> None:
    objects = render(values={"mode": "member"})
    admission = {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}  # the operator's copies only
    assert {o["kind"] for o in objects} == {"ServiceAccount", "Secret", "ClusterRole", "ClusterRoleBinding", *admission}
    assert set(by_kind(objects, "ValidatingAdmissionPolicy")) == {"pc-pinconsole-federation-config-copies"}
    tokens = by_kind(objects, "Secret")
    assert {t["type"] for t in tokens.values()} == {"kubernetes.io/service-account-token"}
    assert set(by_kind(objects, "ServiceAccount")) == {"pc-pinconsole-portal", "pc-pinconsole-operator"}


def test_operator_arguments_parse_with_the_operators_own_parser(render: Render) -> None:
    from pincompute.operator.app import parser, settings_from_args

    operator = by_kind(render(PRODUCTION_VALUES, namespace="platform"), "Deployment")["pc-pinconsole-operator"]
    container = operator["spec"]["template"]["spec"]["containers"][0]
    args = parser().parse_args(container["command"][3:] + container["args"])
    settings = settings_from_args(args)
    assert [c.name for c in settings.clusters] == ["use1-a", "use1-b", "use1-c"]
    assert settings.host is not None and settings.host.context == "host"
    assert settings.lease is not None and settings.lease.context == "host"  # the Lease the lease Role allows
    assert (settings.lease_namespace, settings.lease_name) == ("platform", "pincompute-operator")
