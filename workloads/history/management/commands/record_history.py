"""``manage.py record_history``: the recorder, one leader at a time, beside the federation.

Leader election through a coordination.k8s.io Lease on the host (the operator's own ``LeaderElector``): the
recorder reads the host and the members like the web does (watch caches) and writes the portal's database, so it
is a portal process rather than a part of the Django-free operator; a Celery task would not fit either (a
long-running watch, one at a time). Only the leader writes; a standby takes over within the lease's duration. A
lost lease ends the process (exit 1; the supervisor, the dev command's or Kubernetes', starts it again), as the
operator does. A restart resumes without duplicates: every entry has an idempotent key (``models``)."""

from __future__ import annotations

import signal
import socket
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import DatabaseError, close_old_connections

from clusters import runtime
from pincompute.errors import CoreError
from pincompute.operator.kubeio import Kube
from pincompute.operator.leader import KubeLeaseStore, LeaderElector
from workloads import host as host_module
from workloads.history.recorder import Recorder


class Command(BaseCommand):
    help = "Record every workload's history into the database (leader-elected on the host)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--lease-namespace", default="kube-system")
        parser.add_argument("--lease-name", default="pinconsole-history-recorder")
        parser.add_argument("--lease-duration", type=float, default=10.0)
        parser.add_argument("--identity", default=f"{socket.gethostname()}-{threading.get_native_id()}")
        parser.add_argument("--interval", type=float, default=None, help="seconds between passes")

    def handle(self, *args: Any, **options: Any) -> None:
        stop, lost = threading.Event(), threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        cluster = host_module.host_cluster()
        duration = float(options["lease_duration"])
        elector = LeaderElector(
            KubeLeaseStore(
                Kube(runtime.api_for(cluster), cluster.name), options["lease_namespace"], options["lease_name"]
            ),
            options["identity"],
            lease_duration=duration,
            renew_deadline=duration * 0.7,
            retry_period=max(0.5, duration / 5),
        )
        interval = float(options["interval"] or settings.HISTORY_RECORD_SECONDS)
        worker: list[threading.Thread] = []

        def started() -> None:
            self.stdout.write(f"recorder {options['identity']} leading", ending="\n")
            self.stdout.flush()
            thread = threading.Thread(target=self._record, args=(stop, lost, interval), name="history-recorder")
            thread.start()
            worker.append(thread)

        def on_lost() -> None:
            lost.set()
            stop.set()

        try:
            elector.run(stop, started, on_lost)
        finally:
            stop.set()
            for thread in worker:
                thread.join(60)
            if not lost.is_set():
                elector.release()
            runtime.shutdown()
        if lost.is_set():
            raise SystemExit(1)

    def _record(self, stop: threading.Event, lost: threading.Event, interval: float) -> None:
        recorder = Recorder()
        while not stop.is_set() and not lost.is_set():
            close_old_connections()
            try:
                written = recorder.pass_once()
                if written:
                    self.stdout.write(f"recorded {written}", ending="\n")
                    self.stdout.flush()
            except (DatabaseError, CoreError) as exc:  # the next pass tries again; nothing is lost (keys)
                self.stderr.write(f"history pass failed: {exc}")
            stop.wait(interval)
        close_old_connections()
