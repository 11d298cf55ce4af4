"""``pincompute logs`` and ``exec``: a pod found by its name alone when it is unique across the member clusters
(``--cluster`` when it is not: exit code 2 naming the clusters), and a workload's logs across every member
(``logs workload/NAME`` or ``logs pinapp/NAME``), each line prefixed ``[pod/POD/CONTAINER]`` as ``kubectl logs
--prefix`` does.

A workload's logs without ``-f`` read each of its containers' logs in turn (what is there, then the next); with
``-f`` they are the portal's workload stream, which joins pods as they start on any member and drops those that go.
``--file PATH`` reads a file inside one pod's container (one its kind declares, else only who may open a shell)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO, TextIO
from urllib.parse import quote

from pinconsole_sdk import cli_archive
from pinconsole_sdk.cli_errors import INTERRUPTED, OK
from pinconsole_sdk.cli_targets import WORKLOAD, UsageError, log_target
from pinconsole_sdk.client import Client
from pinconsole_sdk.errors import ApiError, Forbidden, NotFound
from pinconsole_sdk.models import ContainerStreams
from pinconsole_sdk.streams import Shell, Stream, follow_lines, log_url, read_chunks, shell_line


def need_project(args: argparse.Namespace) -> str:
    if not args.project:
        raise UsageError("a project is needed: -n PROJECT")
    return str(args.project)


def find_pod(client: Client, project: str, name: str, cluster: str | None) -> tuple[str, list[ContainerStreams]]:
    """(its cluster, its containers' streams): from ``--cluster`` when given, else from the project's pods on every
    member, which must hold exactly one of that name."""
    if cluster:
        found = client.pod_debug(project, cluster, name)
        return found.cluster, list(found.containers)
    matches = [p for p in client.list_pods(project) if p.name == name]
    if not matches:
        raise NotFound(f"No pod named {name} in project {project}.", status=404, code="not_found")
    if len(matches) > 1:
        clusters = ", ".join(sorted(p.cluster for p in matches))
        raise UsageError(f"pod {name} is on more than one member cluster ({clusters}): pick one with --cluster")
    pod = matches[0]
    return pod.cluster, [ContainerStreams(c.name, c.shell, c.logs) for c in pod.containers]


def pick_container(pod: str, containers: list[ContainerStreams], wanted: str | None, err: TextIO) -> ContainerStreams:
    if not containers:
        raise NotFound(f"pod {pod} has no containers", status=404)
    if wanted is None:
        if len(containers) > 1:
            names = ", ".join(c.name for c in containers)
            err.write(f'Defaulted container "{containers[0].name}" out of: {names}\n')
        return containers[0]
    for container in containers:
        if container.name == wanted:
            return container
    raise NotFound(f"pod {pod} has no container {wanted!r}", status=404)


def _options(args: argparse.Namespace, *, follow: bool) -> dict[str, Any]:
    return {
        "follow": follow,
        "tail": args.tail,
        "since": args.since,
        "timestamps": args.timestamps,
        "previous": args.previous,
    }


def _stream(client: Client, url: str, args: argparse.Namespace, out: TextIO, prefix: bool) -> None:
    stream = Stream(url, client.authorization, client.url, timeout=args.timeout)

    def write(line: dict[str, Any]) -> None:
        if args.container and prefix and line.get("container") != args.container:
            return
        head = f"[pod/{line.get('pod', '')}/{line.get('container', '')}] " if prefix else ""
        out.write(head + str(line.get("text", "")) + "\n")
        out.flush()

    try:
        follow_lines(stream, write, connect_timeout=args.timeout)
    finally:
        stream.close()


def cmd_logs(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    project = need_project(args)
    what, name = log_target(args.target)
    if args.archived:
        if args.follow or args.file or args.previous:
            raise UsageError("--archived reads what was shipped: not with -f, --file or -p")
        workload = name if what == WORKLOAD else None
        return cli_archive.cmd_logs_archived(
            client, args, out, project, pod=None if workload else name, workload=workload
        )
    try:
        if what == WORKLOAD:
            return workload_logs(client, args, project, name, out)
        try:
            _, containers = find_pod(client, project, name, args.cluster)
        except NotFound:  # the pod is gone: its lines are in the archive (with -f too: it will print no more)
            if args.file or args.previous:
                raise
            sys.stderr.write(f"pod {name} is gone; its archived lines:\n")
            return cli_archive.cmd_logs_archived(client, args, out, project, pod=name, workload=None)
        container = pick_container(name, containers, args.container, sys.stderr)
        url = log_url(container.logs, **_options(args, follow=args.follow), file=args.file)
        _stream(client, url, args, out, prefix=args.prefix)
    except KeyboardInterrupt:
        return INTERRUPTED
    return OK


def workload_logs(client: Client, args: argparse.Namespace, project: str, name: str, out: TextIO) -> int:
    if args.file:
        raise UsageError("--file reads a file in one pod's container: logs POD --file PATH")
    if args.follow:
        namespace = client.namespace_of(project)
        base = f"{client.websocket_base}/ws/workload-logs/{quote(namespace, safe='')}/{quote(name, safe='')}/"
        _stream(client, log_url(base, **_options(args, follow=True)), args, out, prefix=True)
        return OK
    pods = sorted(client.list_pods(project, workload=name, cluster=args.cluster), key=lambda p: (p.cluster, p.name))
    if not pods:
        raise NotFound(f"No pods of workload {name} in project {project}.", status=404, code="not_found")
    failures: list[ApiError] = []
    for pod in pods:
        for container in pod.containers:
            if args.container and container.name != args.container:
                continue
            url = log_url(container.logs, **_options(args, follow=False))
            try:
                _stream(client, url, args, out, prefix=True)
            except NotFound as exc:  # --previous of a container that never restarted: said, the others go on
                sys.stderr.write(f"warning: {pod.name}/{container.name}: {exc.message}\n")
                failures.append(exc)
    if failures and len(failures) == sum(len(p.containers) for p in pods):
        raise failures[0]
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
    what, name = log_target(args.pod)
    if what == WORKLOAD:
        raise UsageError("exec runs in one pod: exec POD (get pods --workload NAME lists them)")
    _, containers = find_pod(client, need_project(args), name, args.cluster)
    container = pick_container(name, containers, args.container, sys.stderr)
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
