"""Benchmark: where a command's CPU goes, by program, across every process on the machine (issue 36; not a test).

    .venv/bin/python bench/suite_cpu.py [--every 2] [--out FILE] -- python3 manage.py test

Runs the command and, every ``--every`` seconds until it ends, reads every process's CPU time (``/proc/<pid>/stat``),
keyed by program: the binary's name, or for Python its module or script (``-m pincompute.operator``, an xdist
worker's ``-u -c``). A process's CPU counts up to its last sample, so one that lives under ``--every`` seconds is
missed (the table says how much of the machine's busy time it accounts for). Prints the top programs with their
share of the machine's busy time and the machine's use of its cores; writes ``bench/results/suite_cpu.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "suite_cpu.json"
TICKS = os.sysconf("SC_CLK_TCK")
WRAPPERS = {"devtools.localcp", "pincompute.operator"}  # modules whose first argument says which part runs


def program_of(pid: int, comm: str) -> str:
    if not comm.startswith("python"):
        return comm
    try:
        argv = [a.decode(errors="replace") for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]
    except OSError:
        return comm
    for i, arg in enumerate(argv):
        if arg == "-m" and i + 1 < len(argv):
            extra = f" {argv[i + 2]}" if argv[i + 1] in WRAPPERS and i + 2 < len(argv) else ""
            return f"python -m {argv[i + 1]}{extra}"
        if arg.endswith(".py"):
            return f"python {'/'.join(arg.split('/')[-2:])}"
    return "python " + " ".join(argv[1:3])[:60]


def machine_busy() -> float:
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / TICKS


def sample(seen: dict[tuple[int, str], list]) -> None:
    """Update ``seen`` ({(pid, start time): [program, CPU seconds]}) from every readable process."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        key, cpu = (int(entry.name), fields[19]), (int(fields[11]) + int(fields[12])) / TICKS
        if key in seen:
            seen[key][1] = cpu
        else:
            seen[key] = [program_of(int(entry.name), comm), cpu]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--every", type=float, default=2.0)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("a command to run: ... -- python3 manage.py test")
    seen: dict[tuple[int, str], list] = {}
    sample(seen)
    baseline = {key: cpu for key, (_, cpu) in seen.items()}  # what ran before the command is not its cost
    start, busy_start = time.monotonic(), machine_busy()
    proc = subprocess.Popen(command)
    while proc.poll() is None:
        sample(seen)
        time.sleep(args.every)
    sample(seen)
    wall, busy = time.monotonic() - start, machine_busy() - busy_start
    by_program: dict[str, float] = {}
    for key, (program, cpu) in seen.items():
        by_program[program] = by_program.get(program, 0.0) + cpu - baseline.get(key, 0.0)
    ranked = {k: round(v, 1) for k, v in sorted(by_program.items(), key=lambda kv: -kv[1]) if v >= 0.1}
    cores = os.cpu_count() or 1
    print(f"\n{'CPU s':>8} {'share':>6}  program")
    for program, cpu in list(ranked.items())[: args.top]:
        print(f"{cpu:8.1f} {100 * cpu / busy:5.1f}%  {program}")
    print(
        f"\nwall {wall:.0f} s; the machine was busy {busy:.0f} CPU s = {100 * busy / (wall * cores):.0f}% of its "
        f"{cores} cores; the programs above account for {100 * sum(ranked.values()) / busy:.0f}% of that"
    )
    result = {
        "command": command, "exit": proc.returncode, "wall_seconds": round(wall, 1), "machine_busy_cpu_seconds":
        round(busy, 1), "cores": cores, "cpu_seconds_by_program": ranked,
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
