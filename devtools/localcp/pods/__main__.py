"""The pod supervisor of one member cluster: ``python -m devtools.localcp.pods --cluster NAME ...``.

Runs until SIGTERM: the broker (socket for podshim), the pod watcher, the log pump and the ephemeral containers'
runner.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from pathlib import Path

from kubernetes import client

from ..kwokcfg import PENDING_LOG
from ..nodes import api_client
from .broker import BrokerServer
from .ephemeral import EphemeralRunner
from .jail import PODLOGS
from .pump import LogPump
from .restart import Restarter
from .ship import LogShipper
from .watch import Pod, PodWatcher, Registry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m devtools.localcp.pods")
    ap.add_argument("--cluster", required=True)
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--context", required=True)
    ap.add_argument("--pods-dir", type=Path, required=True)
    ap.add_argument("--podlogs-dir", type=Path, required=True)
    ap.add_argument("--broker-socket", type=Path, required=True)
    ap.add_argument("--bwrap", default="bwrap")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between two lines of one pod")
    ap.add_argument("--archive-url", default="", help="VictoriaLogs: ship every pod's lines there (none: keep them)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    for d in (args.pods_dir, args.podlogs_dir, args.broker_socket.parent):
        d.mkdir(parents=True, exist_ok=True)
    args.pods_dir.chmod(0o700)
    registry = Registry()
    api = api_client(args.kubeconfig, args.context)
    pump = LogPump(args.cluster, registry, args.podlogs_dir / PENDING_LOG, args.interval)
    restarter = Restarter(api, registry, on_restart=pump.restarted)
    broker = BrokerServer(args.broker_socket, registry.get, args.bwrap, restarter.restart)

    shipper = None
    if args.archive_url:
        state = args.podlogs_dir / ".archive-offsets.json"
        shipper = LogShipper(args.cluster, args.archive_url, registry, state, client.CoreV1Api(api))

    def on_delete(key: str) -> None:
        broker.sessions.kill_pod(key)
        pump.forget(key)
        if shipper is not None:
            shipper.drain(key)  # before its files go

    def on_setup(pod: Pod) -> None:
        pump.start(pod)
        if shipper is not None:
            shipper.track(pod)

    ephemeral = EphemeralRunner(api, registry, args.bwrap, broker.sessions.add)
    watcher = PodWatcher(
        api,
        registry,
        args.pods_dir,
        args.podlogs_dir,
        PODLOGS,
        on_delete,
        on_setup=on_setup,
        on_event=ephemeral.offer,
    )

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    threads = [
        threading.Thread(target=broker.serve_forever, name="broker", daemon=True),
        threading.Thread(target=watcher.run, name="watch", daemon=True),
        threading.Thread(target=pump.run, name="pump", daemon=True),
        threading.Thread(target=ephemeral.run, name="ephemeral", daemon=True),
        *([threading.Thread(target=shipper.run, name="ship", daemon=True)] if shipper is not None else []),
    ]
    for t in threads:
        t.start()
    done.wait()
    watcher.stop.set()
    pump.stop.set()
    ephemeral.close()
    if shipper is not None:
        shipper.stop.set()
    broker.shutdown()
    broker.server_close()
    for pod in registry.all():
        broker.sessions.kill_pod(pod.key)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
