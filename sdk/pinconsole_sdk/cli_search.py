"""``pincompute search QUERY``: one search across what the token may see (``GET /api/v1/search/``), ranked as the
portal's search box ranks it: exact names, then prefixes, then a word's prefix, then anywhere in the name.

    pincompute search checkout              KIND, NAME, WHERE (a table)
    pincompute search checkout -o wide      with how it matched and the page's URL
    pincompute search checkout -o name      kind/name per line
    pincompute search train --limit 50      up to 100 results (default 20)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from pinconsole_sdk.cli_output import dump, table
from pinconsole_sdk.client import Client

OK = 0


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    search = sub.add_parser("search", parents=common, help="find projects, workloads, pods (and for admins more)")
    search.add_argument("query", help="a name or part of one")
    search.add_argument("--limit", type=int, default=None, help="at most this many results (1 to 100, default 20)")


def cmd_search(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    found = client.request("GET", "search/", params={"q": args.query, "limit": args.limit})
    hits = found["results"]
    if args.output.structured:
        dump(found, args.output, out)
    elif args.output == "name":
        out.writelines(f"{h['kind']}/{h['name']}\n" for h in hits)
    elif hits:
        wide = args.output == "wide"
        header = ["KIND", "NAME", "WHERE", *(["MATCH", "URL"] if wide else [])]
        rows = [[h["kind"], h["name"], h["where"], *([h["rank"], client.url + h["url"]] if wide else [])] for h in hits]
        table([header, *rows], out)
        if found["more"]:
            out.write(f"(more matched than {len(hits)}: type more of the name, or --limit)\n")
    else:  # as kubectl's "No resources found": on stderr, exit 0
        sys.stderr.write(f"Nothing you can see matches {args.query!r}.\n")
    return OK


HANDLERS = {"search": cmd_search}
