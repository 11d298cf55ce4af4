"""``pincompute capacity cluster/NAME``: a member's tier pools as last sampled, and where each is heading.

    pincompute capacity cluster/member-a [--window 7d]     capacity and allocation per tier, then the forecast
                                                           ("Reserved pool CPU: full in about 12 days at this rate")

The portal's ``/api/v1/clusters/<name>/capacity/`` (a linear trend over the window's hourly samples, its error shown:
docs/usage.md); ``-o json|yaml`` prints the API's body.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from pinconsole_sdk.cli_errors import OK
from pinconsole_sdk.cli_output import dump, table
from pinconsole_sdk.cli_targets import UsageError
from pinconsole_sdk.client import Client, _seg

UNITS = {"cores": "cores", "gib": "GiB", "gpus": "GPUs"}


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    cap = sub.add_parser("capacity", parents=common, help="a member cluster's tier pools and their capacity forecast")
    cap.add_argument("target", help="cluster/NAME")
    cap.add_argument("--window", default="24h", help="the history the trend is fitted over (default 24h)")


def _cluster(text: str) -> str:
    kind, _, name = text.partition("/")
    if kind not in ("cluster", "clusters") or not name or "/" in name:
        raise UsageError(f"{text!r}: give cluster/NAME")
    return name


def cmd_capacity(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    name = _cluster(args.target)
    body = client.request("GET", f"clusters/{_seg(name)}/capacity/", params={"window": args.window})
    if args.output.structured:
        dump(body, args.output, out)
        return OK
    latest: dict[str, dict[str, Any]] = {}
    for point in body["points"]:  # hour by hour: the last one per tier is the pool now
        latest[point["tier"]] = point
    rows = [["TIER", "CPU(alloc/cap)", "MEM GiB(alloc/cap)", "GPU(alloc/cap)"]]
    for tier, p in latest.items():
        rows.append([
            tier,
            f"{p['allocated_cores']:.1f}/{p['capacity_cores']:.1f}",
            f"{p['allocated_gib']:.1f}/{p['capacity_gib']:.1f}",
            f"{p['allocated_gpus']:.0f}/{p['capacity_gpus']:.0f}",
        ])  # fmt: skip
    if len(rows) == 1:
        out.write(f"no capacity samples of {name} in the last {args.window} yet\n")
        return OK
    table(rows, out)
    for f in body["forecasts"]:
        error = f"±{f['residual']:.2f} {UNITS.get(f['unit'], f['unit'])}"
        out.write(f"{f['sentence'].rstrip('.')} (slope {f['slope_per_day']:+.2f}/day, fit error {error})\n")
    return OK


HANDLERS = {"capacity": cmd_capacity}
