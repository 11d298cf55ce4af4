"""The chart's optional objects (off by default): the ServiceMonitors and the NetworkPolicies deploy/README.md and
docs/metrics.md promise, rendered and asserted on; what a scraper needs from the web pods (their own address as a
host); a private IdP's CA bundle. Their schema against a real apiserver: test_chart_cluster.py (server-side dry run)."""

from __future__ import annotations

from tests.support.helm import PRODUCTION_VALUES, Render, by_kind, pod_templates

ON = {"serviceMonitor": {"enabled": True, "labels": {"release": "prom"}}, "networkPolicy": {"enabled": True}}


def test_both_are_off_by_default(render: Render) -> None:
    kinds = {o["kind"] for o in render(PRODUCTION_VALUES)}
    assert "ServiceMonitor" not in kinds and "NetworkPolicy" not in kinds


def test_a_service_monitor_scrapes_each_component_where_it_serves_metrics(render: Render) -> None:
    objects = render(PRODUCTION_VALUES, values=ON)
    monitors = by_kind(objects, "ServiceMonitor")
    services = by_kind(objects, "Service")
    deployments = by_kind(objects, "Deployment")
    assert set(monitors) == {f"pc-pinconsole-{c}" for c in ("web", "worker", "operator")}
    for name, monitor in monitors.items():
        assert monitor["metadata"]["labels"]["release"] == "prom"
        endpoint = monitor["spec"]["endpoints"][0]
        assert endpoint["path"] == "/metrics"
        selected = [
            s
            for s in services.values()
            if monitor["spec"]["selector"]["matchLabels"].items() <= s["metadata"]["labels"].items()
        ]
        assert len(selected) == 1, name
        service = selected[0]
        port = {p["name"]: p for p in service["spec"]["ports"]}[endpoint["port"]]
        pod = deployments[name]["spec"]["template"]
        assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
        container_ports = {p["name"] for p in pod["spec"]["containers"][0]["ports"]}
        assert port["targetPort"] in container_ports, name
    web = monitors["pc-pinconsole-web"]["spec"]["endpoints"][0]
    # the web's /metrics wants the token (console/metrics.py): the Secret the pods read their settings from
    assert web["authorization"]["credentials"] == {"name": "pinconsole-settings", "key": "READYZ_PROBE_TOKEN"}
    # a leader whose member is down is unready, and exactly then its metrics matter
    assert services["pc-pinconsole-operator-metrics"]["spec"]["publishNotReadyAddresses"] is True


def test_network_policies_admit_only_the_web_port_the_metrics_ports_and_the_admission_webhook(
    render: Render,
) -> None:
    objects = render(PRODUCTION_VALUES, values=ON)
    policies = by_kind(objects, "NetworkPolicy")
    pods = {n.removeprefix("pc-pinconsole-"): d["spec"]["template"] for n, d in by_kind(objects, "Deployment").items()}

    def admitted(component: str) -> set[str]:
        labels = pods[component]["metadata"]["labels"]
        ports: set[str] = set()
        for policy in policies.values():
            selector = policy["spec"]["podSelector"]
            if not selector["matchLabels"].items() <= labels.items():
                continue
            if any(labels.get(e["key"]) not in e["values"] for e in selector.get("matchExpressions", [])):
                continue
            ports |= {p["port"] for rule in policy["spec"].get("ingress", []) for p in rule["ports"]}
        return ports

    assert {c: admitted(c) for c in pods} == {
        "web": {"http"},
        "worker": {"metrics"},
        "operator": {"metrics", "webhook"},  # the webhook from anywhere: the apiserver is outside the pod network
        "beat": set(),
    }
    assert "from" not in policies["pc-pinconsole-operator-webhook"]["spec"]["ingress"][0]
    metrics = policies["pc-pinconsole-metrics"]["spec"]["ingress"][0]
    assert metrics["from"] == [{"namespaceSelector": {}}]  # inside the cluster only
    assert "from" not in policies["pc-pinconsole-web"]["spec"]["ingress"][0]  # the ingress controller, wherever
    assert {p["spec"]["policyTypes"][0] for p in policies.values()} == {"Ingress"}


def test_the_web_answers_its_pod_address_beside_the_public_hosts(render: Render) -> None:
    web = by_kind(render(PRODUCTION_VALUES), "Deployment")["pc-pinconsole-web"]["spec"]["template"]["spec"]
    env = {e["name"]: e for e in web["containers"][0]["env"]}
    assert env["POD_IP"]["valueFrom"] == {"fieldRef": {"fieldPath": "status.podIP"}}
    assert env["ALLOWED_HOSTS"]["value"] == "portal.example.com,portal.internal.example.com,$(POD_IP)"
    names = list(env)
    assert names.index("POD_IP") < names.index("ALLOWED_HOSTS")  # $(POD_IP) expands only from an earlier variable


def test_the_operator_serves_the_admission_webhook_behind_its_service_with_the_rights_it_needs(render: Render) -> None:
    objects = render(PRODUCTION_VALUES)
    operator = by_kind(objects, "Deployment")["pc-pinconsole-operator"]["spec"]["template"]
    container = operator["spec"]["containers"][0]
    args = dict(a.removeprefix("--").split("=", 1) for a in container["args"] if "=" in a)
    service = by_kind(objects, "Service")["pc-pinconsole-operator-webhook"]
    namespace = args["lease-namespace"]

    assert args["webhook-service"] == f"{namespace}/pc-pinconsole-operator-webhook:443"
    assert args["webhook-failure-policy"] == "Fail"
    port = {p["name"]: p["containerPort"] for p in container["ports"]}["webhook"]
    assert args["webhook-bind-address"] == f"0.0.0.0:{port}"
    assert service["spec"]["selector"].items() <= operator["metadata"]["labels"].items()
    assert service["spec"]["ports"] == [{"name": "webhook", "port": 443, "targetPort": "webhook", "protocol": "TCP"}]
    rules = [r for role in by_kind(objects, "ClusterRole").values() for r in role["rules"]]
    rules += [r for role in by_kind(objects, "Role").values() for r in role["rules"]]

    def allowed(resource: str, verb: str, name: str | None = None) -> bool:
        return any(
            resource in r["resources"]
            and verb in r["verbs"]
            and (name is None or name in r.get("resourceNames", [name]))
            for r in rules
        )

    assert allowed("validatingwebhookconfigurations", "create")
    assert allowed("validatingwebhookconfigurations", "patch", "pincompute-host-admission")
    assert allowed("secrets", "create") and allowed("secrets", "get", "pincompute-admission-webhook")
    assert allowed("namespaces", "get")
    assert allowed("validatingwebhookconfigurations", "delete", "pincompute-host-admission")
    for policy_resource in ("validatingadmissionpolicies", "validatingadmissionpolicybindings"):  # host_policy's
        assert allowed(policy_resource, "create")
        assert allowed(policy_resource, "patch", "pincompute-host-admission")
        assert allowed(policy_resource, "delete", "pincompute-host-admission")
    cleanup = by_kind(objects, "Job")["pc-pinconsole-webhook-cleanup"]
    assert cleanup["metadata"]["annotations"]["helm.sh/hook"] == "pre-delete"  # helm uninstall removes it first
    pod = cleanup["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == operator["spec"]["serviceAccountName"]
    assert pod["containers"][0]["command"][-1] == "remove-webhook"
    assert pod["volumes"][-1]["configMap"]["name"] == "pc-pinconsole-operator-host"
    off = render(PRODUCTION_VALUES, values={"operator": {"federation": {"admissionWebhook": {"enabled": False}}}})
    assert "pc-pinconsole-operator-webhook" not in by_kind(off, "Service")
    assert "pc-pinconsole-webhook-cleanup" not in by_kind(off, "Job")
    assert not any(
        "webhook" in a
        for a in by_kind(off, "Deployment")["pc-pinconsole-operator"]["spec"]["template"]["spec"]["containers"][0][
            "args"
        ]
    )


def test_a_private_idps_ca_bundle_is_mounted_into_the_web_pods_and_named_by_oidc_verify_ssl(render: Render) -> None:
    default = by_kind(render(PRODUCTION_VALUES), "ConfigMap")["pc-pinconsole-settings"]["data"]
    assert default["OIDC_VERIFY_SSL"] == "true"
    bundle = {"configMap": "idp-ca", "key": "b.pem"}
    objects = render(PRODUCTION_VALUES, values={"config": {"oidc": {"caBundle": bundle}}})
    path = by_kind(objects, "ConfigMap")["pc-pinconsole-settings"]["data"]["OIDC_VERIFY_SSL"]
    pods = pod_templates(objects)
    web = pods["pc-pinconsole-web"]
    volume = {v["name"]: v for v in web["volumes"]}["oidc-ca"]
    assert volume["configMap"] == {"name": "idp-ca", "items": [{"key": "b.pem", "path": "ca.crt"}]}
    mount = {m["name"]: m for m in web["containers"][0]["volumeMounts"]}["oidc-ca"]
    assert mount["readOnly"] is True and path == f"{mount['mountPath']}/ca.crt"
    others = [n for n, pod in pods.items() if "oidc-ca" in {v["name"] for v in pod.get("volumes", [])}]
    assert others == ["pc-pinconsole-web"]  # only the web pods call the IdP
