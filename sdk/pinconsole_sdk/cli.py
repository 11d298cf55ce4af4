"""``pincompute``: the Compute API from a shell, with kubectl's habits (sdk/README.md has every command).

    pincompute get [KIND[/NAME] [NAME...]] [-n PROJECT | -A] [-l SELECTOR] [-w] [-o wide|yaml|json|name|jsonpath=T]
    pincompute get pods [NAME] -n PROJECT [--cluster C] [--workload W] [--phase P] [-l SELECTOR]
    pincompute describe KIND NAME -n PROJECT                    (KIND NAME or KIND/NAME everywhere)
    pincompute apply -f FILE|DIR|- [-f ...] [-R] [-n PROJECT] [--dry-run[=server]]   (multi-document; idempotent)
    pincompute diff -f FILE|DIR|- [-f ...] [-n PROJECT]   (exit 0 no differences, 1 differences, >1 an error)
    pincompute delete KIND NAME... -n PROJECT | delete -f FILE|DIR
    pincompute scale KIND NAME --replicas N -n PROJECT
    pincompute pause|resume|stop|start|restart KIND NAME -n PROJECT
    pincompute restart-container KIND NAME -c CONTAINER [--pod POD] -n PROJECT
    (every write takes --if-match VERSION: refused with exit code 4, naming both versions, when it is stale)
    pincompute rollout undo KIND/NAME [--to-revision N] -n PROJECT
    pincompute timeline [KIND NAME] -n PROJECT
    pincompute history KIND/NAME -n PROJECT [--since T] [--category K]   (cli_history: deleted workloads too)
    pincompute get workloads --deleted -n PROJECT
    pincompute logs POD|workload/NAME|KIND/NAME -n PROJECT [-c C] [-f] [-p] [--tail N] [--since 10m] [--file PATH]
    pincompute logs POD|workload/NAME -n PROJECT --archived [--since 2h] [--until T] [--grep TEXT]   (pods gone too)
    pincompute exec [-i] [-t] POD -n PROJECT [--cluster C] [-c CONTAINER] [-- COMMAND ...]
    pincompute debug POD -n PROJECT --cluster C [-c TARGET] [--image IMAGE]   (cli_debug: a debug container's shell)
    pincompute version [--client]
    pincompute search QUERY [--limit N]
    pincompute recommend workload/NAME -n PROJECT [--window 7d] [--apply]   (cli_recommend: right-sizing)
    pincompute completion bash|zsh|fish

``-n``/``--namespace``/``--project`` name the project; ``-p`` is its old short option, kept everywhere but in
``logs``, where ``-p`` is ``--previous`` as in kubectl.

Exit codes: 0 ok, 1 an API error (refused, invalid: the field paths are printed), 2 usage, 3 not found,
4 conflict (a stale version, or it exists), 5 unavailable (503, 429 or no answer after the retries), 130 Ctrl-C
(``-w``, ``logs -f``, ``exec``).

Bad input (an argument that is not UTF-8 text, a file that cannot be read, is not UTF-8, is not YAML or holds a
value JSON cannot carry, a file or stdin over the API's body limit) is one line and exit code 2, never a
traceback. An unexpected error (a bug) is one line and exit code 1; ``PINCONSOLE_DEBUG=1`` shows its traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO, TextIO

from pinconsole_sdk import (  # one per line: commands are added by several hands
    cli_access,
    cli_archive,
    cli_capacity,
    cli_clusters,
    cli_configs,
    cli_cost,
    cli_debug,
    cli_history,
    cli_network,
    cli_notifications,
    cli_owners,
    cli_policy,
    cli_preview,
    cli_quota,
    cli_recommend,
    cli_robots,
    cli_search,
    cli_top,
    cli_webhooks,
    documents,
)
from pinconsole_sdk.cli_commands import (
    cmd_describe,
    cmd_operation,
    cmd_restart_container,
    cmd_scale,
    cmd_timeline,
    cmd_version,
    need_project,
)
from pinconsole_sdk.cli_completion import SHELLS, cmd_completion
from pinconsole_sdk.cli_errors import API_ERROR, OK, USAGE, check_text, exit_code, report
from pinconsole_sdk.cli_get import cmd_get
from pinconsole_sdk.cli_logs import cmd_exec, cmd_logs
from pinconsole_sdk.cli_output import OUTPUT_HELP, Output, output_format, show_workloads
from pinconsole_sdk.cli_rollout import add_rollout, cmd_rollout
from pinconsole_sdk.cli_targets import UsageError, named
from pinconsole_sdk.client import MAX_TIMEOUT, Client, normalize_document
from pinconsole_sdk.errors import (
    ApiError,
    ConfigError,
    ConnectionFailed,
)

OPERATIONS = ("pause", "resume", "stop", "start", "restart")


# --- commands -------------------------------------------------------------------------------------------------


def read_documents(files: list[str], stdin: Any, *, recursive: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """Each workload document of ``files`` (``-``: ``stdin``; a directory: its .yaml, .yml and .json files, and
    with ``recursive`` those of its subdirectories), each file read up to the API's body limit."""
    docs: list[tuple[str, dict[str, Any]]] = []
    try:
        names = documents.expand_paths(files, recursive=recursive)
    except documents.DocumentError as exc:
        raise UsageError(str(exc)) from None
    for name in names:
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
    docs = read_documents(args.filename, sys.stdin, recursive=args.recursive)
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
        if args.output in ("table", "wide"):
            out.write(f"{w.kind.lower()}/{w.name} {result.verb}{' (dry run)' if args.dry_run else ''}\n")
    if args.output not in ("table", "wide"):
        show_workloads(applied, args.output, out)
    return OK


def cmd_delete(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    targets: list[tuple[str, str, str]] = []
    if args.filename:
        for _, doc in read_documents(args.filename, sys.stdin, recursive=args.recursive):
            try:
                norm, project = normalize_document(doc)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            targets.append((args.project or project or need_project(args), norm["kind"], norm["metadata"]["name"]))
    elif args.resource:
        project = need_project(args)
        found = named(args.resource)
        if not found:
            raise UsageError("delete KIND NAME..., delete KIND/NAME..., or delete -f FILE")
        targets += [(project, kind, name) for kind, name in found]
    else:
        raise UsageError("delete KIND NAME..., delete KIND/NAME..., or delete -f FILE")
    for project, kind, name in targets:
        client.delete(project, kind, name, if_match=args.if_match)
        out.write(f"{kind.lower()}/{name} deleted\n")
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


def _common(suppress: bool, *, project_p: bool = True) -> argparse.ArgumentParser:
    """The options every command takes, before or after it (kubectl's habit): on the main parser with
    defaults, on each command without (so a value given before the command is not reset after it). ``-p`` is the
    project's old short option, kept everywhere but in ``logs``, where it is ``--previous`` as in kubectl."""
    parser = argparse.ArgumentParser(add_help=False)

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    names = ["-n", "--namespace", "--project", *(["-p"] if project_p else [])]
    parser.add_argument(*names, dest="project", default=default(None), help="the project (its namespace)")
    parser.add_argument("-o", "--output", type=output_format, default=default(Output("table")), help=OUTPUT_HELP)
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


def _one(parser: argparse.ArgumentParser, *, optional: bool = False) -> None:
    """KIND NAME or KIND/NAME (a kind by any of its names: papp, pinapps, PinApp)."""
    parser.add_argument("resource", nargs="*" if optional else "+", metavar="KIND[/NAME] [NAME]")


def _files(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument(
        "-f",
        "--filename",
        action="append",
        required=required,
        help="a file, a directory (its .yaml, .yml, .json), or -",
    )
    parser.add_argument("-R", "--recursive", action="store_true", help="-f DIR: its subdirectories too")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pincompute",
        description="The PinCompute Compute API from a shell.",
        parents=[_common(False)],
        epilog="Exit codes: 0 ok, 1 API error, 2 usage, 3 not found, 4 conflict, 5 unavailable, 130 Ctrl-C.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = [_common(True)]

    get = sub.add_parser("get", parents=common, help="list workloads or pods, or show some")
    get.add_argument("resources", nargs="*", metavar="KIND[/NAME] [NAME...]", help="papp, pinapps/web, all, pods")
    get.add_argument("-l", "--selector", help="only those whose labels match (app=web,tier in (a,b),!canary)")
    get.add_argument("-A", "--all-namespaces", action="store_true", help="every project the token can see")
    get.add_argument("-w", "--watch", action="store_true", help="then print each change, until Ctrl-C")
    get.add_argument("--cluster", help="pods: only on this member cluster")
    get.add_argument("--workload", help="pods: only this workload's")
    get.add_argument("--phase", help="pods: only in this phase (Pending, Running, Succeeded, Failed, Unknown)")
    cli_history.add_parsers(sub, common, get)

    describe = sub.add_parser("describe", parents=common, help="show one workload in detail, with its timeline")
    _one(describe)

    apply = sub.add_parser("apply", parents=common, help="create or update workloads from YAML/JSON files")
    _files(apply, required=True)
    cli_preview.add_dry_run(apply)
    _if_match(apply)

    cli_preview.add_diff(sub, common, files=_files)

    delete = sub.add_parser("delete", parents=common, help="delete workloads")
    delete.add_argument("resource", nargs="*", metavar="KIND[/NAME] [NAME...]")
    _files(delete, required=False)
    _if_match(delete)

    scale = sub.add_parser("scale", parents=common, help="set the number of replicas")
    _one(scale)
    scale.add_argument("--replicas", type=int, required=True)
    _if_match(scale)

    for operation in OPERATIONS:
        p = sub.add_parser(operation, parents=common, help=f"{operation} a workload")
        _one(p)
        _if_match(p)

    restart_container = sub.add_parser(
        "restart-container", parents=common, help="restart one container, in every pod or in one (--pod)"
    )
    _one(restart_container)
    restart_container.add_argument("-c", "--container", required=True, help="the container to restart")
    restart_container.add_argument("--pod", help="only in this pod (default: every pod of the workload)")
    _if_match(restart_container)
    add_rollout(sub, common)

    timeline = sub.add_parser("timeline", parents=common, help="state changes and events, newest first")
    _one(timeline, optional=True)
    timeline.add_argument("--since", help="ISO-8601")
    timeline.add_argument("--until", help="ISO-8601")

    logs = sub.add_parser(
        "logs", parents=[_common(True, project_p=False)], help="a pod's log, or a workload's on every member"
    )
    logs.add_argument("target", metavar="POD|pod/POD|workload/NAME|KIND/NAME")
    logs.add_argument("-p", "--previous", action="store_true", help="the previous (terminated) container's log")
    logs.add_argument("--cluster", help="the pod's member cluster (needed only when its name is on several)")
    logs.add_argument("-c", "--container", help="the container (default: the first; a workload: every one)")
    logs.add_argument("-f", "--follow", action="store_true", help="stream until the log ends (or Ctrl-C)")
    logs.add_argument("--tail", type=int, help="only the last N lines of what is there already")
    logs.add_argument("--since", help="only lines newer than this (30s, 10m, 2h)")
    logs.add_argument("--timestamps", action="store_true", help="each line starts with its time (RFC 3339)")
    logs.add_argument(
        "--prefix", action="store_true", help="each line starts with [pod/POD/CONTAINER] (workloads: always)"
    )
    logs.add_argument("--file", metavar="PATH", help="a file in the container (one its kind declares, or as a shell)")
    cli_archive.add_arguments(logs)

    exec_ = sub.add_parser("exec", parents=common, help="a shell, or a command, in a pod container")
    exec_.add_argument("pod", metavar="POD|pod/POD")
    exec_.add_argument("--cluster", help="the pod's member cluster (needed only when its name is on several)")
    exec_.add_argument("-c", "--container", help="the container (default: the first)")
    exec_.add_argument("-i", "--stdin", action="store_true", help="pass stdin to the command")
    exec_.add_argument("-t", "--tty", action="store_true", help="stdin is a terminal: raw mode, resize")
    exec_.epilog = "After --: the command and its arguments (default: a shell)."

    cli_clusters.add_parsers(sub, common)
    cli_configs.add_parsers(sub, common)
    cli_debug.add_parser(sub, common)
    cli_search.add_parser(sub, common)
    cli_top.add_parser(sub, common)
    cli_capacity.add_parser(sub, common)
    cli_recommend.add_parser(sub, common)
    cli_cost.add_parser(sub, common)
    cli_network.add_parser(sub, common)
    cli_quota.add_parser(sub, common)
    cli_owners.add_parser(sub, common)
    cli_robots.add_parsers(sub, common)
    cli_access.add_parser(sub, common)
    cli_notifications.add_parser(sub, common)
    cli_policy.add_parser(sub, common)
    cli_webhooks.add_parser(sub, common)

    version = sub.add_parser("version", parents=common, help="the client's version and the server's")
    version.add_argument("--client", action="store_true", help="the client's only (no request)")

    completion = sub.add_parser("completion", help="print a shell completion script (bash, zsh, fish)")
    completion.add_argument("shell", choices=SHELLS)
    return parser


HANDLERS = {
    "get": cli_configs.or_configs(cli_history.with_deleted(cmd_get), "resources"),
    "describe": cmd_describe,
    "apply": cli_preview.with_dry_run(cmd_apply),
    "diff": cli_preview.cmd_diff,
    "delete": cli_configs.or_configs(cmd_delete, "resource"),
    "scale": cmd_scale,
    "timeline": cmd_timeline,
    "logs": cmd_logs,
    "version": cmd_version,
    "restart-container": cmd_restart_container,
    "rollout": cmd_rollout,
    **dict.fromkeys(OPERATIONS, cmd_operation),
    **cli_clusters.HANDLERS,
    **cli_search.HANDLERS,
    **cli_top.HANDLERS,
    **cli_network.HANDLERS,
    **cli_quota.HANDLERS,
    **cli_owners.HANDLERS,
    **cli_robots.HANDLERS,
    **cli_configs.HANDLERS,
    **cli_access.HANDLERS,
    **cli_notifications.HANDLERS,
    **cli_webhooks.HANDLERS,
    **cli_history.HANDLERS,
    **cli_policy.HANDLERS,
    **cli_capacity.HANDLERS,
    **cli_recommend.HANDLERS,
    **cli_cost.HANDLERS,
}


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
        return cmd_completion(parser, args.shell, out)
    owned = client is None
    try:
        check_text(args)
        if args.command == "login":  # before a client: the token comes from --token-file, not the config
            return cli_robots.cmd_login(args, out)
        if client is None:
            client = Client(args.url, args.token, timeout=args.timeout)
        if args.command == "exec":
            return cmd_exec(client, args, out, inp if inp is not None else sys.stdin.buffer)
        if args.command == "debug":
            stdin = inp if inp is not None else sys.stdin.buffer
            return cli_debug.cmd_debug(client, args, out, stdin, open_shell=cmd_exec, err=err)
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
