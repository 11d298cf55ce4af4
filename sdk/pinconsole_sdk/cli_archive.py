"""``pincompute logs --archived``: a pod's or a workload's lines from the log archive, pods that are gone included.

    pincompute logs POD -n PROJECT --archived [-c CONTAINER] [--cluster C] [--since 2h] [--until T] [--grep TEXT]
                                     [--regex RE]
    pincompute logs workload/NAME -n PROJECT --archived ...     every pod the workload ran, on every cluster

``pincompute logs POD`` falls back to the archive when the pod is gone (the API answers 404 for it), saying so on
stderr. Lines print oldest first, as ``kubectl logs`` does (``--timestamps``: each with its time; a workload's with
its cluster/pod/container).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from pinconsole_sdk.client import Client, _seg

OK = 0


def add_arguments(logs: argparse.ArgumentParser) -> None:
    """The archive's options on the ``logs`` parser."""
    logs.add_argument("--archived", action="store_true", help="read the log archive (pods that are gone too)")
    logs.add_argument("--until", help="archived lines older than this (a duration such as 10m, or RFC 3339)")
    logs.add_argument("--grep", help="archived lines holding this phrase")
    logs.add_argument("--regex", help="archived lines matching this regular expression (RE2)")


def archived_logs(client: Client, project: str, **filters: Any) -> list[dict[str, str]]:
    """``GET /api/v1/projects/<p>/logs/archive/``: the newest matching lines, newest first."""
    body = client.request("GET", f"projects/{_seg(project)}/logs/archive/", params=filters)
    return list(body["lines"])


def cmd_logs_archived(
    client: Client, args: argparse.Namespace, out: TextIO, project: str, *, pod: str | None, workload: str | None
) -> int:
    """One pod's archived lines (``pod``), or every pod's of a workload (``workload``)."""
    filters = {
        "workload": workload,
        "pod": pod,
        "container": args.container,
        "cluster": args.cluster,
        "since": args.since,
        "until": args.until,
        "q": args.grep,
        "regex": args.regex,
        "limit": args.tail,
    }
    lines = archived_logs(client, project, **filters)
    if not lines:
        sys.stderr.write("no archived line matches\n")
    for line in reversed(lines):
        prefix = f"[{line['cluster']}/{line['pod']}/{line['container']}] " if workload else ""
        stamp = f"{line['time']} " if args.timestamps else ""
        out.write(f"{stamp}{prefix}{line['message']}\n")
    out.flush()
    return OK
