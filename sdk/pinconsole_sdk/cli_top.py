"""``pincompute top``: what containers use against what they request, and the waste, most over-requested first.

    pincompute top pods -n PROJECT [--sort cpu_waste] [--limit 20]       one project's pods
    pincompute top workloads -n PROJECT                                   one project's workloads
    pincompute top workloads -A                                           every project the token can see
    pincompute top containers -n PROJECT --workload PinApp/web            one workload's containers

Use is Prometheus' (the portal's ``/api/v1/projects/<p>/use/`` and ``/api/v1/use/``), at most one scrape interval
old; ``-o json|yaml`` prints the API's body.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from pinconsole_sdk.cli_errors import OK
from pinconsole_sdk.cli_output import dump, table
from pinconsole_sdk.cli_targets import UsageError
from pinconsole_sdk.client import Client, _seg

LEVELS = {"containers": "container", "pods": "pod", "workloads": "workload", "projects": "project"}
SORTS = ("waste_cost", "cpu_waste", "memory_waste", "cpu_use", "memory_use", "cpu_request", "memory_request")


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    top = sub.add_parser("top", parents=common, help="use against requests, and the waste, most over-requested first")
    top.add_argument("what", choices=tuple(LEVELS), help="the rows: containers, pods, workloads or projects")
    top.add_argument("-A", "--all-namespaces", action="store_true", help="every project the token can see")
    top.add_argument("--sort", choices=SORTS, default="waste_cost", help="largest first (default waste_cost)")
    top.add_argument("--limit", type=int, default=50, help="at most this many rows (default 50)")
    top.add_argument("--workload", help="only this workload's (Kind/name)")
    top.add_argument("--pod", help="only this pod's")


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def cmd_top(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if not args.all_namespaces and not args.project:
        raise UsageError("a project is needed: -n PROJECT (or -A for every project)")
    params = {"level": LEVELS[args.what], "sort": args.sort, "limit": args.limit, "workload": args.workload,
              "pod": args.pod}  # fmt: skip
    path = "use/" if args.all_namespaces else f"projects/{_seg(args.project)}/use/"
    body = client.request("GET", path, params={k: v for k, v in params.items() if v})
    if args.output.structured:
        dump(body, args.output, out)
        return OK
    rows = [["NAME", *(["PROJECT"] if args.all_namespaces else []), "TIER", "CPU(use/req)", "MEM GiB(use/req)",
             "WASTE CPU", "WASTE GiB", f"{body['currency']}/h"]]  # fmt: skip
    for r in body["rows"]:
        rows.append([
            r["name"], *([r["project"]] if args.all_namespaces else []), r["tier"],
            f"{_num(r['cpu_use'])}/{_num(r['cpu_request'])}",
            f"{_num(r['memory_use_gib'])}/{_num(r['memory_request_gib'])}",
            _num(r["cpu_waste"]), _num(r["memory_waste_gib"]), r["waste_cost"] if r["measured"] else "-",
        ])  # fmt: skip
    if len(rows) == 1:
        out.write("no running containers\n")
    else:
        table(rows, out)
    return OK


HANDLERS = {"top": cmd_top}
