"""``manage.py run_operator``: the same operator as ``python -m workloads.core.operator``, with the member
clusters taken from the registry (or from --kubeconfig/--context, which win when given)."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from clusters.models import Cluster, FederationRole
from workloads.core.operator.app import ClusterTarget, Settings, run
from workloads.core.operator.controller import Options


class Command(BaseCommand):
    help = "Reconcile pincompute.io/v1 custom resources on every registered member cluster."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--kubeconfig", default=os.environ.get("KUBECONFIG"))
        parser.add_argument("--context", action="append", default=[])
        parser.add_argument("--lease-context", help="kubeconfig context of the Lease (default: the host cluster)")
        parser.add_argument("--no-leader-election", action="store_true")
        parser.add_argument("--workers", type=int, default=4)
        parser.add_argument("--metrics-port", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["context"]:
            if not options["kubeconfig"]:
                raise CommandError("--context needs --kubeconfig")
            targets = [ClusterTarget(c, options["kubeconfig"], c) for c in options["context"]]
            lease_context = options["lease_context"] or options["context"][0]
            lease = ClusterTarget(lease_context, options["kubeconfig"], lease_context)
        else:
            targets, lease = self._from_registry(options["lease_context"])
        settings = Settings(
            targets,
            None if options["no_leader_election"] else lease,
            options=Options(workers=options["workers"]),
            metrics_port=options["metrics_port"],
        )
        code = run(settings)
        if code:
            raise CommandError(f"operator stopped with exit code {code}")

    def _from_registry(self, lease_context: str | None) -> tuple[list[ClusterTarget], ClusterTarget]:
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
        host = next((r for r in rows if r.role != FederationRole.MEMBER and r.kubeconfig_path), None)
        if lease_context:
            lease = ClusterTarget(lease_context, targets[0].kubeconfig, lease_context)
        elif host is not None:
            lease = ClusterTarget(host.name, host.kubeconfig_path, host.kube_context or host.name)
        else:
            lease = targets[0]
        return targets, lease
