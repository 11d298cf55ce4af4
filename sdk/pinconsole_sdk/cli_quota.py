"""``pincompute quota fit``: per tier and member cluster, the largest pod request the project could run now
(``/api/v1/projects/<p>/quota/fit/``): admitted by what is left of its grant, placed by the federation and taken by
one node without preempting anyone.

    pincompute quota fit -n web                     every tier
    pincompute quota fit --tier ondemand -n web     one tier
    pincompute quota fit -n web -o json             the API's body (raw millicores, bytes and GPUs too)
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO
from urllib.parse import quote

from pinconsole_sdk.cli_commands import need_project
from pinconsole_sdk.cli_errors import OK
from pinconsole_sdk.cli_output import dump
from pinconsole_sdk.client import Client

TIERS = ("reserved", "ondemand", "preemptible")


def cmd_quota(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    project = need_project(args)
    body = client.request("GET", f"projects/{quote(project, safe='')}/quota/fit/")
    if args.tier:
        body = {**body, "tiers": [t for t in body["tiers"] if t["tier"] == args.tier]}
    if args.output.structured:
        dump(body, args.output, out)
        return OK
    for problem in body["problems"]:
        out.write(f"note: {problem}\n")
    platform = body["platform"]["text"]
    out.write(
        f"largest pod that fits now (the platform's containers, {platform['cpu']} cpu and "
        f"{platform['memory']}, included; each resource alone unless 'together')\n"
    )
    for tier in body["tiers"]:
        left = tier["grant_left"]["text"]
        out.write(f"{tier['tier']}: grant left cpu {left['cpu']}, memory {left['memory']}, gpu {left['gpu']}\n")
        for cluster in tier["clusters"]:
            out.write(f"  {_line(cluster)}\n")
        if not tier["clusters"]:
            out.write("  no member cluster\n")
    return OK


def _line(cluster: dict[str, Any]) -> str:
    if not cluster["fits"]:
        return f"{cluster['cluster']}: nothing fits: " + "; ".join(cluster["reasons"])
    largest, joint, pool = cluster["largest"]["text"], cluster["joint"]["text"], cluster["pool_free"]["text"]
    binding = cluster["bounds"]["cpu"][0]
    return (
        f"{cluster['cluster']}: cpu {largest['cpu']} (of {pool['cpu']} free in the pool; {binding}), "
        f"memory {largest['memory']}, gpu {largest['gpu']}; together {joint['cpu']} cpu with {joint['memory']}"
    )


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    """``quota fit`` on ``sub`` (cli.build_parser's subparsers)."""
    quota = sub.add_parser("quota", parents=common, help="a project's quota: the largest request that fits now")
    actions = quota.add_subparsers(dest="action", metavar="ACTION", required=True)
    fit = actions.add_parser("fit", parents=common, help="per tier and member, the largest pod that fits now")
    fit.add_argument("--tier", choices=TIERS, help="one tier only")


HANDLERS = {"quota": cmd_quota}
