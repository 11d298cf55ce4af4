"""``manage.py run_operator``: the same operator as ``python -m pincompute.operator``, with the member
clusters taken from the registry (or from --kubeconfig/--context, which win when given).

From the registry, each member is named as the registry names it (its context is only how it is
reached), so the federation's ``MemberCluster`` objects, which the registry writes under those names,
match; the registered host runs the federation unless ``--no-federation``."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from clusters.models import Cluster, FederationRole
from pincompute.operator.app import ClusterTarget, Settings, run
from pincompute.operator.controller import Options


class Command(BaseCommand):
    help = "Reconcile pincompute.io/v1 custom resources on every registered member cluster."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--kubeconfig", default=os.environ.get("KUBECONFIG"))
        parser.add_argument("--context", action="append", default=[])
        parser.add_argument("--lease-context", help="kubeconfig context of the Lease (default: the host cluster)")
        parser.add_argument("--no-leader-election", action="store_true")
        parser.add_argument("--no-federation", action="store_true", help="members only: no federation on the host")
        parser.add_argument("--workers", type=int, default=16)
        parser.add_argument("--metrics-port", type=int, help="the older form of --metrics-bind-address 127.0.0.1:PORT")
        parser.add_argument("--metrics-bind-address", metavar="HOST:PORT", help="serve /metrics there (0.0.0.0:9090)")

    def handle(self, *args: Any, **options: Any) -> None:
        host: ClusterTarget | None = None
        if options["context"]:
            if not options["kubeconfig"]:
                raise CommandError("--context needs --kubeconfig")
            targets = [ClusterTarget(c, options["kubeconfig"], c) for c in options["context"]]
            lease_context = options["lease_context"] or options["context"][0]
            lease = ClusterTarget(lease_context, options["kubeconfig"], lease_context)
        else:
            targets, lease, host = self._from_registry(options["lease_context"])
        settings = Settings(
            targets,
            None if options["no_leader_election"] else lease,
            options=Options(workers=options["workers"]),
            metrics_port=options["metrics_port"],
            metrics_address=options["metrics_bind_address"],
            host=None if options["no_federation"] else host,
        )
        code = run(settings)
        if code:
            raise CommandError(f"operator stopped with exit code {code}")

    def _from_registry(
        self, lease_context: str | None
    ) -> tuple[list[ClusterTarget], ClusterTarget, ClusterTarget | None]:
        rows = list(Cluster.objects.all())
        targets = []
        for row in rows:
            if row.role != FederationRole.MEMBER:
                continue
            if row.in_cluster or not row.kubeconfig_path:
                raise CommandError(f"cluster {row.name}: in-cluster config is not supported by run_operator yet")
            targets.append(ClusterTarget(row.name, row.kubeconfig_path, row.kube_context or row.name))
        if not targets:
            raise CommandError("no member clusters registered")
        row = next((r for r in rows if r.role != FederationRole.MEMBER and r.kubeconfig_path), None)
        host = ClusterTarget(row.name, row.kubeconfig_path, row.kube_context or row.name) if row else None
        if lease_context:
            lease = ClusterTarget(lease_context, targets[0].kubeconfig, lease_context)
        else:
            lease = host or targets[0]
        return targets, lease, host
