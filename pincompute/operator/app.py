"""Command line and assembly: one ApiClient per context, never the global kube configuration.

``python -m pincompute.operator [run] --kubeconfig PATH --context member-a --context member-b
    [--host-context host] [--lease-context host] [--workers 16] [--metrics-bind-address 0.0.0.0:9090] ...``

With ``--host-context`` the process is also the federation controller: workloads persisted on the host
are admitted, placed, propagated to the members given by ``--context`` (named as in the host's
MemberCluster objects) and their status aggregated back; the lease then lives on the host by default.
``python -m pincompute.operator install-crds --kubeconfig PATH --context member-a ... [--host-context host]``
``python -m pincompute.operator export-crds --output-dir DIR``: the same CRDs as files (the chart's ``crds/``)
``python -m pincompute.operator remove-webhook --kubeconfig PATH --host-context host``: the host admission webhook's
registration and the host's ValidatingAdmissionPolicy with its binding removed (after uninstalling: with failure
policy Fail, a registration nobody serves any more would refuse every workload write on the host)
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pincompute.errors import CoreError
from pincompute.kinds import InstalledOn
from pincompute.operator.cluster import ClusterRuntime, Key, Topology
from pincompute.operator.controller import Operator, Options
from pincompute.operator.crd_files import write_crd_files
from pincompute.operator.federation.controller import Federation
from pincompute.operator.install import install
from pincompute.operator.kubeio import Kube, operator_client
from pincompute.operator.leader import KubeLeaseStore, LeaderElector
from pincompute.operator.metrics import Metrics, parse_address, serve
from pincompute.operator.webhook import WebhookSettings
from pincompute.operator.webhook import start as start_webhook
from pincompute.operator.webhook.registration import ServiceRef, unregister
from pincompute.runtime import load_profile

log = logging.getLogger("pincompute.operator")


@dataclass(frozen=True)
class ClusterTarget:
    """A member cluster to reconcile: a kubeconfig context (or an explicit zone override)."""

    name: str
    kubeconfig: str
    context: str
    zone: str = ""


@dataclass(frozen=True)
class Settings:
    clusters: list[ClusterTarget]
    lease: ClusterTarget | None = None  # None: no leader election (single replica)
    lease_namespace: str = "kube-system"
    lease_name: str = "pincompute-operator"
    lease_duration: float = 10.0
    renew_period: float = 2.0
    identity: str = field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}")
    options: Options = field(default_factory=Options)
    metrics_port: int | None = None  # the older form of metrics_address: 127.0.0.1:PORT
    metrics_address: str | None = None  # host:port of /metrics; None (and no metrics_port): not served
    host: ClusterTarget | None = None  # the federation's host cluster; None: members only
    webhook: WebhookSettings | None = None  # the host's admission webhook (with ``host``); None: not served


def build_operator(settings: Settings, stop: threading.Event) -> Operator:
    """Everything wired, nothing started (``Operator.run`` starts informers once it leads)."""
    metrics = Metrics()
    holder: list[Operator] = []

    def enqueue(key: Key, cause: str = "other", /) -> None:
        holder[0].enqueue(key, cause)

    def enqueue_after(key: Key, delay: float, cause: str) -> None:
        holder[0].enqueue_after(key, delay, cause)

    clusters = {}
    for target in settings.clusters:
        kube = Kube(operator_client(target.kubeconfig, target.context), target.name)
        clusters[target.name] = ClusterRuntime(
            kube,
            enqueue,
            stop,
            instance=settings.identity,
            topology=Topology(zone=target.zone) if target.zone else None,
            enqueue_after=enqueue_after,
            ignored=lambda cause: holder[0].ignored(cause, "member"),
        )
    elector = None
    if settings.lease is not None:
        lease_kube = Kube(operator_client(settings.lease.kubeconfig, settings.lease.context), settings.lease.name)
        elector = LeaderElector(
            KubeLeaseStore(lease_kube, settings.lease_namespace, settings.lease_name),
            settings.identity,
            lease_duration=settings.lease_duration,
            renew_deadline=settings.lease_duration * 0.7,
            retry_period=settings.renew_period,
        )
    profile = load_profile()
    federation = None
    if settings.host is not None:
        host = settings.host

        def federation(op: Operator) -> Federation:
            kube = Kube(operator_client(host.kubeconfig, host.context), host.name)
            return Federation(
                kube,
                clusters,
                profile,
                op.enqueue,
                stop,
                instance=settings.identity,
                ignored=op.ignored,
                enqueue_after=op.enqueue_after,  # without it shard news went at once: no coalescing, no delays
            )

    operator = Operator(
        clusters, profile, stop, options=settings.options, elector=elector, metrics=metrics, federation=federation
    )
    holder.append(operator)
    return operator


def _zones(values: Sequence[str]) -> dict[str, str]:
    return dict(v.split("=", 1) for v in values if "=" in v)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m pincompute.operator",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "command", nargs="?", default="run", choices=("run", "install-crds", "export-crds", "remove-webhook")
    )
    p.add_argument("--output-dir", help="export-crds: the directory the CRD files are written to")
    p.add_argument("--kubeconfig", default=os.environ.get("KUBECONFIG"), help="kubeconfig file (or $KUBECONFIG)")
    p.add_argument("--context", action="append", default=[], help="member cluster context; repeat for each")
    p.add_argument(
        "--zone",
        action="append",
        default=[],
        metavar="CONTEXT=ZONE",
        help="override a cluster's zone (default: the most common node zone)",
    )
    p.add_argument("--lease-context", help="context holding the leader Lease (default: the first --context)")
    p.add_argument(
        "--host-context",
        help="the host cluster's context: run the federation controller there (install-crds: the host's CRDs)",
    )
    p.add_argument("--lease-namespace", default="kube-system")
    p.add_argument("--lease-name", default="pincompute-operator")
    p.add_argument("--lease-duration", type=float, default=10.0)
    p.add_argument("--renew-period", type=float, default=2.0)
    p.add_argument("--no-leader-election", action="store_true")
    p.add_argument("--identity", help="leader election identity (default: hostname-pid)")
    p.add_argument("--workers", type=int, default=16, help="reconcile threads (they mostly wait on apiservers)")
    p.add_argument("--resync-seconds", type=float, default=300.0)
    p.add_argument("--shutdown-timeout", type=float, default=20.0)
    p.add_argument(
        "--metrics-bind-address",
        metavar="HOST:PORT",
        help="serve /metrics (Prometheus format), /healthz and /readyz there, e.g. 0.0.0.0:9090 in a pod (port 0 = any "
        "free port)",
    )
    p.add_argument("--metrics-port", type=int, help="the older form of --metrics-bind-address 127.0.0.1:PORT")
    p.add_argument(
        "--webhook-bind-address",
        metavar="HOST:PORT",
        help="serve the host's admission webhook there (with --host-context) and register it on the host",
    )
    p.add_argument("--webhook-url", help="the URL the host's apiserver calls (default: https://BIND/validate)")
    p.add_argument(
        "--webhook-service",
        metavar="NAMESPACE/NAME[:PORT]",
        help="the Service in front of the webhook in a cluster (instead of --webhook-url)",
    )
    p.add_argument("--webhook-failure-policy", choices=("Fail", "Ignore"), default="Fail")
    p.add_argument(
        "--webhook-secret-namespace", help="where its certificate's Secret lives (default: --lease-namespace)"
    )
    p.add_argument("--log-level", default="INFO")
    return p


def webhook_from_args(args: argparse.Namespace) -> WebhookSettings | None:
    if not args.webhook_bind_address:
        return None
    if not args.host_context:
        raise SystemExit("--webhook-bind-address: the webhook guards the host, so --host-context is required")
    try:
        bind = parse_address(args.webhook_bind_address)
        service = ServiceRef.parse(args.webhook_service) if args.webhook_service else None
    except ValueError as exc:
        raise SystemExit(f"--webhook-*: {exc}") from None
    if service is None and not args.webhook_url and bind[0] in ("0.0.0.0", "::", ""):  # noqa: S104 - refusing it
        raise SystemExit("--webhook-bind-address on every interface needs --webhook-url or --webhook-service")
    return WebhookSettings(
        bind,
        args.webhook_secret_namespace or args.lease_namespace,
        url=args.webhook_url,
        service=service,
        failure_policy=args.webhook_failure_policy,
    )


def settings_from_args(args: argparse.Namespace) -> Settings:
    if not args.kubeconfig or not args.context:
        raise SystemExit("--kubeconfig and at least one --context are required")
    if args.metrics_bind_address:
        try:
            parse_address(args.metrics_bind_address)
        except ValueError as exc:
            raise SystemExit(f"--metrics-bind-address: {exc}") from None
    zones = _zones(args.zone)
    clusters = [ClusterTarget(c, args.kubeconfig, c, zones.get(c, "")) for c in args.context]
    host = ClusterTarget(args.host_context, args.kubeconfig, args.host_context) if args.host_context else None
    lease_context = args.lease_context or args.host_context or args.context[0]
    lease = None if args.no_leader_election else ClusterTarget(lease_context, args.kubeconfig, lease_context)
    extra = {"identity": args.identity} if args.identity else {}
    return Settings(
        clusters,
        lease,
        args.lease_namespace,
        args.lease_name,
        args.lease_duration,
        args.renew_period,
        options=Options(
            workers=args.workers, resync_seconds=args.resync_seconds, shutdown_timeout=args.shutdown_timeout
        ),
        metrics_port=args.metrics_port,
        metrics_address=args.metrics_bind_address,
        host=host,
        webhook=webhook_from_args(args),
        **extra,
    )


def run(settings: Settings) -> int:
    """Run until SIGTERM/SIGINT (exit 0 after draining) or lost leadership (exit 1)."""
    stop = threading.Event()
    operator = build_operator(settings, stop)

    def on_signal(signum: int, _frame: object) -> None:
        log.info("signal %s: shutting down", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    address = metrics_address(settings)
    if address is not None:
        server = serve(operator.metrics, *address, probes=operator)
        log.info("metrics, /healthz and /readyz on http://%s:%d", address[0], server.server_port)
    if settings.webhook is not None and settings.host is not None:
        host = Kube(operator_client(settings.host.kubeconfig, settings.host.context), settings.host.name)
        webhook = start_webhook(settings.webhook, host, load_profile())
        log.info("host admission webhook on %s:%d", settings.webhook.bind[0], webhook.server_port)
    log.info("operator %s for %s", settings.identity, ", ".join(c.name for c in settings.clusters))
    return operator.run()


def metrics_address(settings: Settings) -> tuple[str, int] | None:
    """Where /metrics is served: ``metrics_address``, else 127.0.0.1:``metrics_port``, else nowhere."""
    if settings.metrics_address:
        return parse_address(settings.metrics_address)
    return None if settings.metrics_port is None else ("127.0.0.1", settings.metrics_port)


def install_crds(members: Sequence[ClusterTarget], host: ClusterTarget | None = None) -> int:
    """Members: workload CRDs, tier PriorityClasses, project ClusterRoles. The host: the workload CRDs, and the
    ProjectQuota and MemberCluster CRDs."""
    plan = [(t, InstalledOn.MEMBER) for t in members] + ([(host, InstalledOn.HOST)] if host else [])
    for target, role in plan:
        api = operator_client(target.kubeconfig, target.context)
        try:
            names = install(Kube(api, target.name), role=role)
        except CoreError as exc:
            log.error("%s: %s", target.name, exc)
            return 1
        finally:
            api.close()
        extra = ", tier PriorityClasses and project ClusterRoles applied" if role is InstalledOn.MEMBER else ""
        log.info("%s (%s): %d CRDs Established%s", target.name, role.value, len(names), extra)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s",
    )
    logging.getLogger("urllib3").setLevel(logging.ERROR)
    # at DEBUG the client logs every response body, the project Secrets the federation copies included
    logging.getLogger("kubernetes.client.rest").setLevel(logging.INFO)
    if args.command == "export-crds":
        if not args.output_dir:
            raise SystemExit("export-crds: --output-dir is required (the chart's: deploy/helm/pinconsole/crds)")
        written = write_crd_files(Path(args.output_dir))
        log.info("%d CRD files written to %s", len(written), args.output_dir)
        return 0
    if args.command == "remove-webhook":
        if not args.kubeconfig or not args.host_context:
            raise SystemExit("remove-webhook: --kubeconfig and --host-context are required")
        unregister(Kube(operator_client(args.kubeconfig, args.host_context), args.host_context))
        log.info("host admission webhook and policy registrations removed from %s", args.host_context)
        return 0
    if args.command == "install-crds":
        if not args.kubeconfig or not (args.context or args.host_context):
            raise SystemExit("--kubeconfig and at least one --context or --host-context are required")
        members = [ClusterTarget(c, args.kubeconfig, c) for c in args.context]
        host = ClusterTarget(args.host_context, args.kubeconfig, args.host_context) if args.host_context else None
        return install_crds(members, host)
    return run(settings_from_args(args))
