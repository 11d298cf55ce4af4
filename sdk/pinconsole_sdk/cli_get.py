"""``pincompute get``: workloads and pods, by kind and name (``get papp web``, ``get papp/web``), filtered by label
(``-l``, matched by the server as Kubernetes does), in one project (``-n``) or every one the token can see (``-A``),
and ``-w``, which prints each change until Ctrl-C.

The API has no watch: ``-w`` lists again every ``WATCH_SECONDS`` and prints each workload (or pod) whose state
changed since it was last printed, and a ``deleted`` row for each one gone, as kubectl's watch prints events."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from pinconsole_sdk.cli_errors import INTERRUPTED, OK
from pinconsole_sdk.cli_output import (
    WORKLOAD_HEADER,
    WORKLOAD_WIDE,
    Output,
    dump,
    pod_rows,
    show_pods,
    show_workloads,
    table,
    workload_name,
    workload_row,
)
from pinconsole_sdk.cli_targets import POD, Targets, UsageError, targets
from pinconsole_sdk.client import Client
from pinconsole_sdk.errors import NotFound
from pinconsole_sdk.models import Pod, Workload

WATCH_SECONDS = 2.0
sleep: Callable[[float], None] = time.sleep  # tests replace it


def projects_of(client: Client, args: argparse.Namespace, *, needed: bool) -> list[str] | None:
    """The projects to read: ``-n``'s, every visible one for ``-A``, or None (the API's "every visible project"
    for workloads; an error when ``needed``)."""
    if args.all_namespaces and args.project:
        raise UsageError("-A (every project) and -n PROJECT cannot go together")
    if args.project:
        return [str(args.project)]
    if args.all_namespaces or not needed:
        return client.project_names() if needed else None
    raise UsageError("a project is needed: -n PROJECT (or -A for every project)")


def warn(problems: list[str]) -> None:
    for problem in problems:
        sys.stderr.write(f"warning: {problem}\n")


# --- workloads ------------------------------------------------------------------------------------------------


def read_workloads(client: Client, args: argparse.Namespace, found: Targets) -> tuple[list[Workload], bool]:
    """The workloads named (or listed) and whether one object was named (printed alone with -o json)."""
    full = args.output.structured or args.output == "wide"
    if found.pairs or found.names:
        if args.all_namespaces:
            raise UsageError("-A lists; name no workload with it")
        project = args.project or _need_project()
        pairs = list(found.pairs) or [(found.kind or "", name) for name in found.names]
        return [client.get(project, kind, name) for kind, name in pairs], len(pairs) == 1
    projects = projects_of(client, args, needed=False)
    items = client.list_workloads(
        projects[0] if projects else None, found.kind, label_selector=args.selector, full=full
    )
    warn(items.problems)
    return list(items), False


def _need_project() -> str:
    raise UsageError("a project is needed: -n PROJECT")


def cmd_get(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    found = targets(args.resources)
    if found.pods:
        return get_pods(client, args, found, out)
    if args.cluster or args.workload or args.phase:
        raise UsageError("--cluster, --workload and --phase filter pods: get pods ...")
    if args.watch:
        return watch(
            lambda: read_workloads(client, args, found)[0],
            args.output,
            out,
            workload_key,
            workload_state,
            workload_event,
        )
    items, single = read_workloads(client, args, found)
    show_workloads(items, args.output, out, single=single)
    return OK


def workload_key(w: Workload) -> tuple[str, ...]:
    return (w.project, w.kind, w.name)


def workload_state(w: Workload) -> tuple[Any, ...]:
    s = w.status
    return (w.version, s.state, s.reason, s.ready, s.desired, tuple(s.clusters), w.deleting, w.admission.admitted)


def workload_event(w: Workload, output: Output, out: TextIO, *, header: bool, deleted: bool) -> None:
    if output == "name":
        out.write(workload_name(w) + "\n")
    elif output.structured:
        dump(w.to_dict(), output, out)
    else:
        wide = output == "wide"
        row = workload_row(w, wide=wide, state="deleted" if deleted else None)
        emit(WORKLOAD_HEADER + (WORKLOAD_WIDE if wide else []), row, out, header=header)


def emit(head: list[str], row: list[str], out: TextIO, *, header: bool) -> None:
    """One watch row: under its header the first time (a table), alone after."""
    if header:
        table([head, row], out)
    else:
        out.write("   ".join(row).rstrip() + "\n")


# --- pods -------------------------------------------------------------------------------------------------------


def read_pods(client: Client, args: argparse.Namespace, found: Targets) -> list[tuple[str, Pod]]:
    names = set(found.names) | {name for kind, name in found.pairs if kind == POD}
    if any(kind != POD for kind, _ in found.pairs):
        raise UsageError("get pods and workloads apart: get pod/NAME..., or get KIND/NAME...")
    items: list[tuple[str, Pod]] = []
    for project in projects_of(client, args, needed=True) or []:
        listed = client.list_pods(
            project, cluster=args.cluster, workload=args.workload, phase=args.phase, label_selector=args.selector
        )
        warn(listed.problems)
        items += [(project, p) for p in listed if not names or p.name in names]
    missing = sorted(names - {p.name for _, p in items})
    if missing:
        raise NotFound(f"No pod named {', '.join(missing)} in project {args.project}.", status=404, code="not_found")
    return items


def get_pods(client: Client, args: argparse.Namespace, found: Targets, out: TextIO) -> int:
    """``get pods [NAME]``: the project's pods on every member (``--cluster``, ``--workload``, ``--phase``, ``-l``)."""
    every = bool(args.all_namespaces)
    if args.watch:
        return watch(lambda: read_pods(client, args, found), args.output, out, pod_key, pod_state, pod_event(every))
    show_pods(read_pods(client, args, found), args.output, out, projects=every)
    return OK


def pod_key(item: tuple[str, Pod]) -> tuple[str, ...]:
    return (item[0], item[1].cluster, item[1].name)


def pod_event(every: bool) -> Callable[..., None]:
    def event(item: tuple[str, Pod], output: Output, out: TextIO, *, header: bool, deleted: bool) -> None:
        project, p = item
        if output.structured or output == "name":
            show_pods([item], output, out)
            return
        head, row = pod_rows([(project, p)], wide=output == "wide", projects=every)
        if deleted:
            row[head.index("STATUS")] = "deleted"
        emit(head, row, out, header=header)

    return event


def pod_state(item: tuple[str, Pod]) -> tuple[Any, ...]:
    p = item[1]
    return (p.status, p.ready, p.restarts, p.node, p.phase)


# --- -w ---------------------------------------------------------------------------------------------------------


def watch(
    read: Callable[[], list[Any]],
    output: Output,
    out: TextIO,
    key: Callable[[Any], tuple[str, ...]],
    state: Callable[[Any], tuple[Any, ...]],
    event: Callable[..., None],
) -> int:
    """Print what ``read`` lists, then each change (``state`` differs), until Ctrl-C (exit code 130, as
    ``logs -f``)."""
    seen: dict[tuple[str, ...], tuple[Any, Any]] = {}
    header = True
    try:
        while True:
            items = read()
            now = {key(item): item for item in items}
            for k, item in now.items():
                if k not in seen or seen[k][0] != state(item):
                    event(item, output, out, header=header, deleted=False)
                    header = False
            for k in [k for k in seen if k not in now]:
                event(seen.pop(k)[1], output, out, header=header, deleted=True)
                header = False
            seen.update({k: (state(item), item) for k, item in now.items()})
            out.flush()
            sleep(WATCH_SECONDS)
    except KeyboardInterrupt:
        return INTERRUPTED
