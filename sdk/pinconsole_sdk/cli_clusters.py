"""``pincompute cordon|drain|uncordon``: a platform admin takes a member cluster, or one of its nodes, out of
service and back (the clusters API; anyone else gets 403).

    pincompute cordon cluster/member-a          no new shards go to member-a; what runs stays
    pincompute cordon node/member-a/node-1      node-1 of member-a unschedulable
    pincompute drain cluster/member-a [--jobs-deadline 600] [--wait]
    pincompute drain node/member-a/node-1       cordon node-1 and evict its pods (kubectl drain)
    pincompute uncordon cluster/member-a        back in service (cordon and drain lifted)
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any, TextIO
from urllib.parse import quote

from pinconsole_sdk.client import Client

WAIT_POLL = 2.0


@dataclass(frozen=True)
class Target:
    kind: str  # "cluster" or "node"
    cluster: str
    node: str = ""

    def __str__(self) -> str:
        return f"node/{self.cluster}/{self.node}" if self.node else f"cluster/{self.cluster}"


def target(text: str) -> Target:
    """``cluster/NAME`` or ``node/CLUSTER/NODE`` (argparse's type: a bad one is a usage error)."""
    parts = text.split("/")
    if len(parts) == 2 and parts[0] in ("cluster", "clusters") and parts[1]:
        return Target("cluster", parts[1])
    if len(parts) == 3 and parts[0] in ("node", "nodes") and all(parts[1:]):
        return Target("node", parts[1], parts[2])
    raise argparse.ArgumentTypeError(f"{text!r}: give cluster/NAME or node/CLUSTER/NODE")


def _path(name: str, *rest: str) -> str:
    return "/".join(["clusters", quote(name, safe=""), *rest]) + "/"


def cmd_cordon(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    return _cordon(client, args.target, True, out)


def cmd_uncordon(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    return _cordon(client, args.target, False, out)


def _cordon(client: Client, what: Target, cordon: bool, out: TextIO) -> int:
    verb = "cordon" if cordon else "uncordon"
    if what.node:
        client.request("POST", _path(what.cluster, "nodes", verb), body={"node": what.node}, idempotent=True)
    else:
        client.request("POST", _path(what.cluster, verb), idempotent=True)
    out.write(f"{what} {verb}ed\n")
    return 0


def cmd_drain(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    what: Target = args.target
    if what.node:
        return _drain_node(client, what, out)
    body: dict[str, Any] = {}
    if args.jobs_deadline is not None:
        body["jobs_deadline_seconds"] = args.jobs_deadline
    client.request("POST", _path(what.cluster, "drain"), body=body, idempotent=True)
    progress = client.request("GET", _path(what.cluster, "maintenance"))
    out.write(f"{what} draining: {_progress(progress)}\n")
    while args.wait and not progress.get("done"):
        time.sleep(WAIT_POLL)
        progress = client.request("GET", _path(what.cluster, "maintenance"))
        out.write(f"{what}: {_progress(progress)}\n")
        out.flush()
    if args.wait:
        out.write(f"{what} drained\n")
    return 0


def _drain_node(client: Client, what: Target, out: TextIO) -> int:
    done = client.request("POST", _path(what.cluster, "nodes", "drain"), body={"node": what.node}, idempotent=True)
    for pod in done.get("evicted") or []:
        out.write(f"pod/{pod} evicted\n")
    for pod, why in sorted((done.get("kept") or {}).items()):
        out.write(f"pod/{pod} left in place: {why}\n")
    for pod, why in sorted((done.get("refused") or {}).items()):
        out.write(f"pod/{pod} not evicted: {why}\n")
    out.write(f"{what} drained\n" if not done.get("refused") else f"{what} cordoned; drain again to retry\n")
    return 0 if not done.get("refused") else 1


def _progress(progress: dict[str, Any]) -> str:
    finished = progress.get("finished") or []
    kept = f"; {len(finished)} finished job(s) kept there as records" if finished else ""
    if progress.get("done"):
        return f"nothing placed there any more{kept}"
    placed, moving = progress.get("placed") or [], progress.get("moving") or []
    return f"{len(placed)} workload(s) still placed there, {len(moving)} moving off{kept}"


def add_parsers(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    """The three commands on ``sub`` (cli.build_parser's subparsers)."""
    for name, text in (
        ("cordon", "close a member cluster (cluster/NAME) or a node (node/CLUSTER/NODE) to new work"),
        ("uncordon", "return a member cluster or a node to service"),
    ):
        p = sub.add_parser(name, parents=common, help=text)
        p.add_argument("target", type=target, help="cluster/NAME or node/CLUSTER/NODE")
    drain = sub.add_parser(
        "drain", parents=common, help="move everything off a member cluster (cluster/NAME) or node (node/CLUSTER/NODE)"
    )
    drain.add_argument("target", type=target, help="cluster/NAME or node/CLUSTER/NODE")
    drain.add_argument("--jobs-deadline", type=int, help="cluster: seconds a job may finish there first (600)")
    drain.add_argument("--wait", action="store_true", help="cluster: print progress until nothing is left")


HANDLERS = {"cordon": cmd_cordon, "uncordon": cmd_uncordon, "drain": cmd_drain}
