"""``pincompute``: the Compute API from a shell, with kubectl's habits.

    pincompute get [KIND [NAME]] [-p PROJECT] [-o table|yaml|json|name]
    pincompute get pods [NAME] -p PROJECT [--cluster C] [--workload W] [--phase P]
    pincompute describe KIND NAME -p PROJECT
    pincompute apply -f FILE.yaml [-f ...] [-p PROJECT] [--dry-run]   (multi-document; idempotent)
    pincompute delete KIND NAME -p PROJECT
    pincompute scale KIND NAME --replicas N -p PROJECT
    pincompute pause|resume|stop|start|restart KIND NAME -p PROJECT
    pincompute restart-container KIND NAME -c CONTAINER [--pod POD] -p PROJECT
    (every write takes --if-match VERSION: refused with exit code 4, naming both versions, when it is stale)
    pincompute rollout undo KIND/NAME [--to-revision N] -p PROJECT
    pincompute timeline [KIND NAME] -p PROJECT
    pincompute logs POD -p PROJECT --cluster C [-c CONTAINER] [-f] [--tail N] [--since 10m] [--timestamps] [--previous]
    pincompute exec [-i] [-t] POD -p PROJECT --cluster C [-c CONTAINER] [-- COMMAND ...]
    pincompute completion bash

Exit codes: 0 ok, 1 an API error (refused, invalid: the field paths are printed), 2 usage, 3 not found,
4 conflict (a stale version, or it exists), 5 unavailable (503, 429 or no answer after the retries).

Bad input (an argument that is not UTF-8 text, a file that cannot be read, is not UTF-8, is not YAML or holds a
value JSON cannot carry, a file or stdin over the API's body limit) is one line and exit code 2, never a
traceback. An unexpected error (a bug) is one line and exit code 1; ``PINCONSOLE_DEBUG=1`` shows its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO, TextIO

import yaml

from pinconsole_sdk import documents
from pinconsole_sdk.cli_diagnosis import fetch_diagnosis, write_diagnosis
from pinconsole_sdk.cli_rollout import add_rollout, cmd_rollout
from pinconsole_sdk.client import MAX_TIMEOUT, Client, normalize_document
from pinconsole_sdk.errors import (
    ApiError,
    ConfigError,
    ConflictError,
    ConnectionFailed,
    Forbidden,
    NotFound,
    RateLimited,
    ServerError,
)
from pinconsole_sdk.models import KINDS, ContainerStreams, Pod, Workload, canonical_kind, kind_names
from pinconsole_sdk.streams import Shell, Stream, follow_logs, log_url, read_chunks, shell_line

OK, API_ERROR, USAGE, NOT_FOUND, CONFLICT, UNAVAILABLE = 0, 1, 2, 3, 4, 5
OUTPUTS = ("table", "yaml", "json", "name")
OPERATIONS = ("pause", "resume", "stop", "start", "restart")
COMMANDS = (
    "get",
    "describe",
    "apply",
    "delete",
    "scale",
    *OPERATIONS,
    "restart-container",
    "rollout",
    "timeline",
    "logs",
    "exec",
    "completion",
)
INTERRUPTED = 130


class UsageError(Exception):
    pass


# --- output ---------------------------------------------------------------------------------------------------


def dump(value: Any, output: str, out: TextIO) -> None:
    if output == "json":
        out.write(json.dumps(value, indent=2, sort_keys=False) + "\n")
    else:
        out.write(yaml.safe_dump(value, sort_keys=False, default_flow_style=False))


def table(rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() + "\n")


def ready(w: Workload) -> str:
    return f"{w.status.ready}/{w.status.desired}" if w.status.desired is not None else str(w.status.ready)


def workload_rows(items: Sequence[Workload]) -> list[list[str]]:
    header = ["PROJECT", "KIND", "NAME", "TIER", "STATUS", "READY", "CLUSTERS", "VERSION"]
    return [header] + [
        [w.project, w.kind, w.name, w.tier, w.status.state, ready(w), ",".join(w.status.clusters) or "-", w.version]
        for w in items
    ]


def show_workloads(items: Sequence[Workload], output: str, out: TextIO, *, single: bool = False) -> None:
    if output == "name":
        for w in items:
            out.write(f"{w.kind.lower()}/{w.name}\n")
    elif output in ("json", "yaml"):
        dump(items[0].to_dict() if single else {"items": [w.to_dict() for w in items]}, output, out)
    elif items:
        table(workload_rows(items), out)
    else:
        out.write("No workloads found.\n")


def describe(w: Workload, entries: list[Any], out: TextIO) -> None:
    lines = [
        f"Name:         {w.name}",
        f"Kind:         {w.kind}",
        f"Project:      {w.project}",
        f"Tier:         {w.tier}",
        f"Version:      {w.version}",
        f"Created:      {w.created_at or '-'}",
        f"Labels:       {', '.join(f'{k}={v}' for k, v in (w.labels or {}).items()) or '<none>'}",
        f"Admission:    {_admitted(w.admission.admitted)} ({w.admission.reason}) {w.admission.message}".rstrip(),
        f"Status:       {w.status.state}{' (deleting)' if w.deleting else ''} {w.status.reason}".rstrip(),
        f"Ready:        {ready(w)}",
        "Conditions:",
    ]
    lines += [f"  {c.type}={c.status} {c.reason} {c.message}".rstrip() for c in w.status.conditions or []] or [
        "  <none>"
    ]
    lines.append("Shards:")
    lines += [
        f"  {s.cluster} zone={s.zone or '-'} replicas={s.replicas} ready={s.ready} state={s.state}"
        + (f" unreachable since {s.unreachable_since}" if s.unreachable_since else "")
        for s in w.shards or []
    ] or ["  <none>"]
    lines.append("Spec:")
    lines += ["  " + line for line in yaml.safe_dump(w.spec, sort_keys=False).splitlines()]
    lines.append("Timeline:")
    lines += [f"  {e.at}  {e.level:<8} {e.source:<10} {e.title} {e.message}".rstrip() for e in entries] or ["  <none>"]
    out.write("\n".join(lines) + "\n")


def _admitted(value: bool | None) -> str:
    return {True: "admitted", False: "refused"}.get(value, "pending") if value is not None else "pending"


# --- commands -------------------------------------------------------------------------------------------------


def need_project(args: argparse.Namespace) -> str:
    if not args.project:
        raise UsageError("a project is needed: -p PROJECT")
    return str(args.project)


POD_WORDS = ("pods", "pod", "po")


def pod_rows(items: Sequence[Pod]) -> list[list[str]]:
    header = ["CLUSTER", "NAME", "READY", "STATUS", "RESTARTS", "NODE", "WORKLOAD"]
    return [header] + [
        [p.cluster, p.name, p.ready, p.status, str(p.restarts), p.node or "-", p.workload or "-"] for p in items
    ]


def cmd_get_pods(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    """``get pods [NAME]``: the project's pods on every member (``--cluster``, ``--workload``, ``--phase``)."""
    items = client.list_pods(need_project(args), cluster=args.cluster, workload=args.workload, phase=args.phase)
    pods = [p for p in items if p.name == args.name] if args.name else list(items)
    if args.name and not pods:
        raise NotFound(f"No pod named {args.name} in project {args.project}.", status=404, code="not_found")
    if args.output == "name":
        out.writelines(f"pod/{p.name}\n" for p in pods)
    elif args.output in ("json", "yaml"):
        dump({"items": [p.to_dict() for p in pods]}, args.output, out)
    elif pods:
        table(pod_rows(pods), out)
    else:
        out.write("No pods found.\n")
    for problem in items.problems:
        sys.stderr.write(f"warning: {problem}\n")
    return OK


def cmd_get(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.kind in POD_WORDS:
        return cmd_get_pods(client, args, out)
    if args.cluster or args.workload or args.phase:
        raise UsageError("--cluster, --workload and --phase filter pods: get pods ...")
    kind = None if args.kind in (None, "all") else canonical_kind(args.kind)
    if args.name:
        if kind is None:
            raise UsageError("get KIND NAME: name a kind with the name")
        show_workloads([client.get(need_project(args), kind, args.name)], args.output, out, single=True)
        return OK
    items = client.list_workloads(args.project or None, kind, full=args.output in ("json", "yaml"))
    show_workloads(items, args.output, out)
    for problem in items.problems:
        sys.stderr.write(f"warning: {problem}\n")
    return OK


def cmd_describe(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    project = need_project(args)
    w = client.get(project, args.kind, args.name)
    if args.output in ("json", "yaml"):
        dump(w.to_dict(), args.output, out)
        return OK
    entries = client.timeline(project, w.kind, w.name, limit=10).entries
    write_diagnosis(fetch_diagnosis(client, project, w.kind, w.name), client.url, out)  # why, first
    describe(w, entries, out)
    return OK


def read_documents(files: list[str], stdin: Any) -> list[tuple[str, dict[str, Any]]]:
    """Each workload document of ``files`` (``-``: ``stdin``), each file read up to the API's body limit."""
    docs: list[tuple[str, dict[str, Any]]] = []
    for name in files:
        shown = "stdin" if name == "-" else name
        try:
            loaded = documents.load_all(documents.read_source(name, stdin), shown)
        except OSError as exc:
            raise UsageError(f"cannot read {shown}: {exc.strerror or exc}") from None
        except documents.DocumentError as exc:
            raise UsageError(str(exc)) from None
        for i, doc in enumerate(loaded):
            if doc is None:
                continue
            if not isinstance(doc, dict):
                raise UsageError(f"{shown}: document {i + 1} is not a mapping")
            items = doc.get("items") if doc.get("kind") == "List" or ("items" in doc and "spec" not in doc) else None
            for item in items if isinstance(items, list) else [doc]:
                if documents.json_size_over(item):
                    raise UsageError(
                        f"{shown}: document {i + 1} is larger than {documents.MAX_BYTES} bytes as JSON, "
                        "the most the API accepts"
                    )
                docs.append((name, item))
    return docs


def cmd_apply(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    docs = read_documents(args.filename, sys.stdin)
    if not docs:
        raise UsageError("no documents in " + ", ".join(args.filename))
    applied = []
    for _, doc in docs:  # one after the other: a refusal stops the run, what came before stays applied
        try:
            result = client.apply(doc, args.project or None, dry_run=args.dry_run, if_match=args.if_match)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        w = result.workload
        applied.append(w)
        if args.output == "table":
            out.write(f"{w.kind.lower()}/{w.name} {result.verb}{' (dry run)' if args.dry_run else ''}\n")
    if args.output != "table":
        show_workloads(applied, args.output, out)
    return OK


def cmd_delete(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    targets: list[tuple[str, str, str]] = []
    if args.filename:
        for _, doc in read_documents(args.filename, sys.stdin):
            try:
                norm, project = normalize_document(doc)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            targets.append((args.project or project or need_project(args), norm["kind"], norm["metadata"]["name"]))
    elif args.kind and args.name:
        targets.append((need_project(args), canonical_kind(args.kind), args.name))
    else:
        raise UsageError("delete KIND NAME, or delete -f FILE")
    for project, kind, name in targets:
        client.delete(project, kind, name, if_match=args.if_match)
        out.write(f"{kind.lower()}/{name} deleted\n")
    return OK


def cmd_scale(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    w = client.scale(need_project(args), args.kind, args.name, args.replicas, if_match=args.if_match)
    return _operated(w, "scaled", args.output, out)


def cmd_operation(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    operation = args.command
    method = getattr(client, operation)
    w = method(need_project(args), args.kind, args.name, if_match=args.if_match)
    past = {"pause": "paused", "resume": "resumed", "stop": "stopped", "start": "started", "restart": "restarted"}
    return _operated(w, past[operation], args.output, out)


def cmd_restart_container(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    project = need_project(args)
    w = client.restart_container(project, args.kind, args.name, args.container, pod=args.pod, if_match=args.if_match)
    where = f"pod {args.pod}" if args.pod else "every pod"
    return _operated(w, f"container {args.container} restarted in {where}", args.output, out)


def _operated(w: Workload, verb: str, output: str, out: TextIO) -> int:
    if output == "table":
        out.write(f"{w.kind.lower()}/{w.name} {verb}\n")
    else:
        show_workloads([w], output, out, single=True)
    return OK


def cmd_timeline(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if (args.kind is None) != (args.name is None):
        raise UsageError("timeline [KIND NAME]: both or neither")
    found = client.timeline(need_project(args), args.kind, args.name, since=args.since, until=args.until)
    if args.output in ("json", "yaml"):
        dump(found.to_dict(), args.output, out)
        return OK
    rows = [["AT", "LEVEL", "SOURCE", "WORKLOAD", "TITLE", "MESSAGE"]]
    rows += [
        [e.at, e.level, e.source, str(e.workload) if e.workload else "-", e.title, e.message] for e in found.entries
    ]
    table(rows, out)
    return OK


def pod_streams(client: Client, args: argparse.Namespace, err: TextIO) -> ContainerStreams:
    """The container's websocket URLs from ``/api/v1/projects/<p>/pods/<cluster>/<pod>/`` (404: exit 3)."""
    if not args.cluster:
        raise UsageError("a member cluster is needed: --cluster CLUSTER")
    found = client.pod_debug(need_project(args), args.cluster, args.pod)
    if not found.containers:
        raise NotFound(f"pod {args.pod} has no containers", status=404)
    if args.container is None:
        if len(found.containers) > 1:
            names = ", ".join(c.name for c in found.containers)
            err.write(f'Defaulted container "{found.containers[0].name}" out of: {names}\n')
        return found.containers[0]
    for container in found.containers:
        if container.name == args.container:
            return container
    raise NotFound(f"pod {args.pod} has no container {args.container!r}", status=404)


def cmd_logs(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    container = pod_streams(client, args, sys.stderr)
    url = log_url(
        container.logs,
        follow=args.follow,
        tail=args.tail,
        since=args.since,
        timestamps=args.timestamps,
        previous=args.previous,
    )
    stream = Stream(url, client.authorization, client.url, timeout=args.timeout)

    def write(text: str) -> None:
        out.write(text)
        out.flush()

    try:
        follow_logs(stream, write, connect_timeout=args.timeout)
    except KeyboardInterrupt:
        return INTERRUPTED
    finally:
        stream.close()
    return OK


@contextlib.contextmanager
def raw_terminal(fd: int) -> Iterator[None]:
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setraw(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def cmd_exec(client: Client, args: argparse.Namespace, out: TextIO, inp: BinaryIO) -> int:
    container = pod_streams(client, args, sys.stderr)
    if container.shell is None:
        raise Forbidden("Viewers can read logs but not open a shell.", status=403, code="forbidden")
    command = list(args.remote) or None
    terminal = args.tty and _isatty(inp)
    if args.tty and not terminal:
        sys.stderr.write("Unable to use a TTY - input is not a terminal\n")
    stream = Stream(container.shell, client.authorization, client.url, timeout=args.timeout)

    def write(text: str) -> None:
        out.write(text)
        out.flush()

    shell = Shell(stream, write)
    try:
        shell.start(shell_line(command, quiet_tty=not terminal, stdin=args.stdin), connect_timeout=args.timeout)
        if not terminal:
            if args.stdin:  # else the command's stdin is /dev/null, as kubectl's without -i
                shell.pump_stdin(read_chunks(inp), eof=True)
            return shell.run()
        fd = inp.fileno()
        with raw_terminal(fd):

            def resized(*_: Any) -> None:
                size = os.get_terminal_size(fd)
                shell.resize(size.columns, size.lines)

            previous = signal.signal(signal.SIGWINCH, resized)
            try:
                resized()
                shell.pump_stdin(read_chunks(inp), eof=False)
                return shell.run()
            finally:
                signal.signal(signal.SIGWINCH, previous)
    except KeyboardInterrupt:
        return INTERRUPTED
    finally:
        stream.close()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


BASH_COMPLETION = """# pincompute bash completion: eval "$(pincompute completion bash)"
_pincompute() {
    local cur prev words cword
    cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}"
    local commands="%(commands)s"
    local kinds="%(kinds)s"
    case "$prev" in
        -o|--output) COMPREPLY=( $(compgen -W "%(outputs)s" -- "$cur") ); return ;;
        -f|--filename) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;
        -p|--project|--url|--token|--replicas|--since|--until|--timeout|--cluster|-c|--container|--tail|--pod\
|--if-match|--workload|--phase) return ;;
        completion) COMPREPLY=( $(compgen -W "bash" -- "$cur") ); return ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=( $(compgen -W "-p --project -o --output -f --filename --replicas --dry-run --url --token \
--timeout --since --until --cluster -c --container --follow --tail -i -t --stdin --tty --pod --if-match --workload \
--phase --timestamps --previous -h --help" \
-- "$cur") ); return
    fi
    local i cmd="" args=()
    for (( i=1; i < COMP_CWORD; i++ )); do
        case "${COMP_WORDS[i]}" in
            -o|--output|-f|--filename|-p|--project|--url|--token|--replicas|--since|--until|--timeout|--cluster\
|-c|--container|--tail|--pod|--if-match|--workload|--phase) (( i++ )) ;;
            -*) ;;
            *) if [[ -z "$cmd" ]]; then cmd="${COMP_WORDS[i]}"; else args+=("${COMP_WORDS[i]}"); fi ;;
        esac
    done
    if [[ -z "$cmd" ]]; then COMPREPLY=( $(compgen -W "$commands" -- "$cur") ); return; fi
    case "$cmd" in
        apply|completion|logs|exec) return ;;
    esac
    if (( ${#args[@]} == 0 )); then COMPREPLY=( $(compgen -W "$kinds" -- "$cur") ); return; fi
    if (( ${#args[@]} == 1 )); then
        local project="" j
        for (( j=1; j < COMP_CWORD; j++ )); do
            [[ "${COMP_WORDS[j]}" == "-p" || "${COMP_WORDS[j]}" == "--project" ]] && project="${COMP_WORDS[j+1]}"
        done
        local names
        names=$(pincompute get "${args[0]}" ${project:+-p "$project"} -o name 2>/dev/null | sed 's|.*/||')
        COMPREPLY=( $(compgen -W "$names" -- "$cur") )
    fi
}
complete -F _pincompute pincompute
"""


def cmd_completion(args: argparse.Namespace, out: TextIO) -> int:
    kinds = " ".join(sorted({*(name for kind in KINDS for name in kind_names(kind)), "all", "pods"}))
    out.write(BASH_COMPLETION % {"commands": " ".join(COMMANDS), "kinds": kinds, "outputs": " ".join(OUTPUTS)})
    return OK


# --- the parser -----------------------------------------------------------------------------------------------


def seconds(text: str) -> float:
    """``--timeout``: a positive number of seconds, at most ``MAX_TIMEOUT`` (argparse makes a refusal exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not 0 < value <= MAX_TIMEOUT:  # also NaN
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds (at most {MAX_TIMEOUT:g})")
    return value


def _common(suppress: bool) -> argparse.ArgumentParser:
    """The options every command takes, before or after it (kubectl's habit): on the main parser with
    defaults, on each command without (so a value given before the command is not reset after it)."""
    parser = argparse.ArgumentParser(add_help=False)

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    parser.add_argument("-p", "--project", default=default(None), help="the project")
    parser.add_argument("-o", "--output", choices=OUTPUTS, default=default("table"), help="output format")
    parser.add_argument("--url", default=default(None), help="the portal's URL (else $PINCONSOLE_URL or config)")
    parser.add_argument("--token", default=default(None), help="an API token (else $PINCONSOLE_TOKEN or config)")
    parser.add_argument("--timeout", type=seconds, default=default(30.0), help="seconds per request (default 30)")
    return parser


def _if_match(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--if-match",
        metavar="VERSION",
        help="write only if the workload is still at this version (get shows it); else exit code 4",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pincompute",
        description="The PinCompute Compute API from a shell.",
        parents=[_common(False)],
        epilog="Exit codes: 0 ok, 1 API error, 2 usage, 3 not found, 4 conflict, 5 unavailable.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = [_common(True)]

    get = sub.add_parser("get", parents=common, help="list workloads, or show one")
    get.add_argument("kind", nargs="?", help="a kind (pinapp, pinapps, PinApp), all, or pods")
    get.add_argument("name", nargs="?")
    get.add_argument("--cluster", help="pods: only on this member cluster")
    get.add_argument("--workload", help="pods: only this workload's")
    get.add_argument("--phase", help="pods: only in this phase (Pending, Running, Succeeded, Failed, Unknown)")

    for name, text in [("describe", "show one workload in detail, with its timeline")]:
        p = sub.add_parser(name, parents=common, help=text)
        p.add_argument("kind")
        p.add_argument("name")

    apply = sub.add_parser("apply", parents=common, help="create or update workloads from YAML/JSON files")
    apply.add_argument("-f", "--filename", action="append", required=True, help="a file, or - for stdin")
    apply.add_argument("--dry-run", action="store_true", help="validate and check the grant; write nothing")
    _if_match(apply)

    delete = sub.add_parser("delete", parents=common, help="delete a workload")
    delete.add_argument("kind", nargs="?")
    delete.add_argument("name", nargs="?")
    delete.add_argument("-f", "--filename", action="append", help="delete what these files describe")
    _if_match(delete)

    scale = sub.add_parser("scale", parents=common, help="set the number of replicas")
    scale.add_argument("kind")
    scale.add_argument("name")
    scale.add_argument("--replicas", type=int, required=True)
    _if_match(scale)

    for operation in OPERATIONS:
        p = sub.add_parser(operation, parents=common, help=f"{operation} a workload")
        p.add_argument("kind")
        p.add_argument("name")
        _if_match(p)

    restart_container = sub.add_parser(
        "restart-container", parents=common, help="restart one container, in every pod or in one (--pod)"
    )
    restart_container.add_argument("kind")
    restart_container.add_argument("name")
    restart_container.add_argument("-c", "--container", required=True, help="the container to restart")
    restart_container.add_argument("--pod", help="only in this pod (default: every pod of the workload)")
    _if_match(restart_container)
    add_rollout(sub, common)

    timeline = sub.add_parser("timeline", parents=common, help="state changes and events, newest first")
    timeline.add_argument("kind", nargs="?")
    timeline.add_argument("name", nargs="?")
    timeline.add_argument("--since", help="ISO-8601")
    timeline.add_argument("--until", help="ISO-8601")

    logs = sub.add_parser("logs", parents=common, help="print (or follow, -f) a pod container's log")
    logs.add_argument("pod")
    logs.add_argument("--cluster", required=True, help="the member cluster the pod runs on")
    logs.add_argument("-c", "--container", help="the container (default: the first)")
    logs.add_argument("-f", "--follow", action="store_true", help="stream until the log ends (or Ctrl-C)")
    logs.add_argument("--tail", type=int, help="only the last N lines of what is there already")
    logs.add_argument("--since", help="only lines newer than this (30s, 10m, 2h)")
    logs.add_argument("--timestamps", action="store_true", help="each line starts with its time (RFC 3339)")
    logs.add_argument("--previous", action="store_true", help="the previous (terminated) container's log")

    exec_ = sub.add_parser("exec", parents=common, help="a shell, or a command, in a pod container")
    exec_.add_argument("pod")
    exec_.add_argument("--cluster", required=True, help="the member cluster the pod runs on")
    exec_.add_argument("-c", "--container", help="the container (default: the first)")
    exec_.add_argument("-i", "--stdin", action="store_true", help="pass stdin to the command")
    exec_.add_argument("-t", "--tty", action="store_true", help="stdin is a terminal: raw mode, resize")
    exec_.epilog = "After --: the command and its arguments (default: a shell)."

    completion = sub.add_parser("completion", help="print a shell completion script")
    completion.add_argument("shell", choices=["bash"])
    return parser


HANDLERS = {
    "get": cmd_get,
    "describe": cmd_describe,
    "apply": cmd_apply,
    "delete": cmd_delete,
    "scale": cmd_scale,
    "timeline": cmd_timeline,
    "logs": cmd_logs,
    "restart-container": cmd_restart_container,
    "rollout": cmd_rollout,
    **dict.fromkeys(OPERATIONS, cmd_operation),
}


def exit_code(error: Exception) -> int:
    if isinstance(error, NotFound):
        return NOT_FOUND
    if isinstance(error, ConflictError):
        return CONFLICT
    if isinstance(error, RateLimited | ServerError | ConnectionFailed):
        return UNAVAILABLE
    return API_ERROR


def report(error: Exception, err: TextIO) -> None:
    if isinstance(error, ApiError):
        err.write(f"Error from server ({error.code or error.status}): {error.message}\n")
        for f in error.fields:
            err.write(f"  {f.path or '(document)'}: {f.message}\n")
        if isinstance(error, ConflictError) and error.live_version:
            err.write(f"  sent version {error.sent_version or '-'}, live version {error.live_version}\n")
        if error.request_id and error.request_id != "-":
            err.write(f"  request id: {error.request_id}\n")
    else:
        err.write(f"error: {error}\n")


POSITIONALS = {"kind": "KIND", "name": "NAME", "pod": "POD", "remote": "the command after --"}
NOT_TEXT = ("filename", "token")  # file names are the system's bytes; the token is checked (unshown) by Client


def check_text(args: argparse.Namespace) -> None:
    """Every argument sent to the portal must be text: a byte that is not UTF-8 (``-p $'\\xff'``) reaches Python
    as a lone surrogate, which no URL, header or JSON body can carry."""
    for dest, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if dest in NOT_TEXT or not isinstance(item, str):
                continue
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                what = POSITIONALS.get(dest, "--" + dest.replace("_", "-"))
                raw = item.encode("utf-8", "surrogateescape")
                raise UsageError(f"{what} is not UTF-8 text: {raw!r}") from None


def main(
    argv: Sequence[str] | None = None,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
    client: Client | None = None,
    inp: BinaryIO | None = None,
) -> int:
    """Run the CLI; the exit code is returned (``console_main`` exits with it). ``client`` and ``inp`` (the
    input of ``exec``) are for tests."""
    out, err = out or sys.stdout, err or sys.stderr
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    remote: list[str] = []
    if "--" in argv:  # exec's command: everything after --, never parsed as options
        at = argv.index("--")
        argv, remote = argv[:at], argv[at + 1 :]
    try:
        args = parser.parse_args(argv)
        if remote and args.command != "exec":
            parser.error(f"unexpected arguments after --: {' '.join(remote)}")
        args.remote = remote
    except SystemExit as exc:  # argparse: --help is 0, a usage error 2
        return int(exc.code or 0)
    if args.command == "completion":
        return cmd_completion(args, out)
    owned = client is None
    try:
        check_text(args)
        if client is None:
            client = Client(args.url, args.token, timeout=args.timeout)
        if args.command == "exec":
            return cmd_exec(client, args, out, inp if inp is not None else sys.stdin.buffer)
        return HANDLERS[args.command](client, args, out)
    except (UsageError, ConfigError) as exc:
        err.write(f"error: {exc}\n")
        return USAGE
    except (ApiError, ConnectionFailed) as exc:
        report(exc, err)
        return exit_code(exc)
    except BrokenPipeError:  # the reader of our output went away (| head): nothing more to say
        return API_ERROR
    # The last resort: input the checks above did not foresee (a value the SDK refuses, a file that cannot be
    # read, text that is not UTF-8) is a usage error with one line, never a traceback.
    except (ValueError, OSError, RecursionError) as exc:
        err.write(f"error: {_oneline(exc)}\n")
        return USAGE
    except Exception as exc:  # a bug: one line, and the traceback only when asked for
        if os.environ.get(DEBUG_ENV):
            raise
        err.write(f"error: unexpected {type(exc).__name__}: {_oneline(exc)} (set {DEBUG_ENV}=1 for the traceback)\n")
        return API_ERROR
    finally:
        if owned and client is not None:
            client.close()


DEBUG_ENV = "PINCONSOLE_DEBUG"


def _oneline(error: BaseException) -> str:
    text = " ".join((str(error) or type(error).__name__).split())
    return text if len(text) <= 300 else text[:297] + "..."


def console_main() -> None:
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # as main's: no "Exception ignored" at exit either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = code or API_ERROR
    sys.exit(code)


if __name__ == "__main__":
    console_main()
