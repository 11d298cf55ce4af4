"""``pincompute cost``: chargeback by request beside by use (OpenCost's max(request, use)), and, for platform
admins, the idle cost of each member pool.

    pincompute cost -n PROJECT [--window 7d] [--aggregate workload]     one project's cost per workload
    pincompute cost -A [--aggregate team]                               every project the token can see (admins:
                                                                        the __idle__ row and the pools' idle)

The portal's ``/api/v1/projects/<p>/cost/`` and ``/api/v1/cost/`` over the whole window; ``-o json|yaml`` prints the
API's body.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from pinconsole_sdk.cli_errors import OK
from pinconsole_sdk.cli_output import dump, table
from pinconsole_sdk.cli_targets import UsageError
from pinconsole_sdk.client import Client, _seg


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    cost = sub.add_parser("cost", parents=common, help="chargeback by request and by use, and the pools' idle cost")
    cost.add_argument("-A", "--all-namespaces", action="store_true", help="every project the token can see")
    cost.add_argument("--window", default="7d", help="24h, 7d, today, month... or START,END (default 7d)")
    cost.add_argument("--aggregate", help="project, team, cost_center, tier, cluster, workload (comma-separated)")


def cmd_cost(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if not args.all_namespaces and not args.project:
        raise UsageError("a project is needed: -n PROJECT (or -A for every project)")
    params = {"window": args.window, "step": "window"}
    if args.aggregate:
        params["aggregate"] = args.aggregate
    elif not args.all_namespaces:
        params["aggregate"] = "workload"
    path = "cost/" if args.all_namespaces else f"projects/{_seg(args.project)}/cost/"
    body = client.request("GET", path, params=params)
    if args.output.structured:
        dump(body, args.output, out)
        return OK
    currency = body["currency"]
    rows = [["NAME", f"BY REQUEST ({currency})", "BY USE", "OVER REQUEST"]]
    for a in body["totals"]:
        rows.append([a["name"] or "(no workload label)", f"{a['total_request_cost']:.2f}", f"{a['total_cost']:.2f}",
                     f"{a['over_request_cost']:.2f}"])  # fmt: skip
    if len(rows) == 1:
        out.write(f"no samples in the last {args.window} yet\n")
        return OK
    rows.append(["TOTAL", f"{body['total_request_cost']:.2f}", f"{body['total_cost']:.2f}",
                 f"{body['total_cost'] - body['total_request_cost']:.2f}"])  # fmt: skip
    table(rows, out)
    if body["pools"]:
        out.write("\nidle capacity per pool (not spread onto projects)\n")
        pools = [["CLUSTER", "POOL", "CAPACITY", "IDLE BY REQUEST", "IDLE BY USE"]]
        for p in body["pools"]:
            pools.append([p["cluster"], p["tier"], f"{p['capacity_cost']:.2f}", f"{p['idle_cost_by_request']:.2f}",
                          f"{p['idle_cost_by_use']:.2f}"])  # fmt: skip
        table(pools, out)
    return OK


HANDLERS = {"cost": cmd_cost}
