"""The dev and test commands' progress lines: numbering, what remains, timing, log tail only on failure."""

import io
import json
import re
import time

import pytest

from devtools.progress import ENV, FAILED, LIVE, Progress, StepFailed, fmt_seconds, read_status


def lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_quick_steps_print_one_line_each_with_number_and_timing():
    out = io.StringIO()
    progress = Progress("dev", ["a", "b"], stream=out, live=False)
    with progress.step("a") as step:
        step.outcome = "cached"
    with progress.step("b"):
        pass

    first, second = lines(out)
    assert re.fullmatch(r"\[dev\] 1/2 a: cached \(0\.\ds, total 0\.\ds\)", first)
    assert second.startswith("[dev] 2/2 b: done (")


def test_a_slow_step_announces_what_remains_and_keeps_reporting():
    out = io.StringIO()
    progress = Progress(
        "dev", ["build x", "build y", "clusters up"], stream=out, live=False, announce_after=0.05, heartbeat=0.1
    )
    with progress.step("build x", log=None):
        time.sleep(0.3)

    text = out.getvalue()
    assert "[dev] 1/3 build x: running; then build y, clusters up" in text
    assert "1/3 build x: still running (0." in text
    assert lines(out)[-1].startswith("[dev] 1/3 build x: done (0.")


def test_a_failed_step_shows_the_tail_of_its_log_and_nothing_else(tmp_path):
    log = tmp_path / "build.log"
    log.write_text("".join(f"compile step {i}\ngo: downloading module{i}\n" for i in range(100)) + "error: boom\n")
    out = io.StringIO()
    progress = Progress("test", ["build x"], stream=out, live=False)
    with pytest.raises(StepFailed), progress.step("build x", log=log):
        raise StepFailed("bash exited with 1")

    text = out.getvalue()
    assert "1/1 build x: FAILED after" in text and "(bash exited with 1)" in text
    assert "error: boom" in text and "compile step 99" in text
    assert "compile step 10\n" not in text  # only the tail
    assert "go: downloading" not in text  # chatter stays in the log


def test_a_planned_step_expands_into_the_steps_found_at_run_time():
    progress = Progress("dev", ["venv", "control-plane binaries", "portal"], stream=io.StringIO(), live=False)
    progress.replace("control-plane binaries", ["build etcd", "build kwok"])

    assert progress.todo == ["venv", "build etcd", "build kwok", "portal"]
    assert progress.total == 4


def test_numbering_and_clock_continue_after_the_bootstrap_reexecs(monkeypatch):
    bootstrap = Progress("dev", ["venv", "npm"], stream=io.StringIO(), live=False)
    for title in ("venv", "npm"):
        with bootstrap.step(title):
            pass
    monkeypatch.setenv(ENV, bootstrap.export()[ENV])
    out = io.StringIO()
    dev = Progress.resume("dev", ["database", "portal"], stream=out, live=False)
    with dev.step("database"):
        pass

    assert json.loads(bootstrap.export()[ENV])["done"] == 2
    assert dev.t0 == bootstrap.t0
    assert lines(out)[0].startswith("[dev] 3/4 database: done (")


def test_live_mode_rewrites_one_line_and_ends_it():
    out = io.StringIO()
    progress = Progress("dev", ["a"], stream=out, live=True)
    with progress.step("a"):
        time.sleep(1.2)

    text = out.getvalue()
    assert "\r\033[2K[dev] 1/1 a: 1." in text
    assert re.search(r"\r\033\[2K\[dev\] 1/1 a: done \(1\.\ds, total 1\.\ds\)\n$", text)


def test_durations_read_like_a_clock_past_a_minute():
    assert fmt_seconds(4.25) == "4.2s"
    assert fmt_seconds(754) == "12m34s"


def test_the_status_file_tells_what_the_terminal_tells(tmp_path, monkeypatch):
    bootstrap = Progress("dev", ["venv", "database", "build x", "clusters up"], stream=io.StringIO(), live=False)
    with bootstrap.step("venv") as step:
        step.outcome = "up to date"
    monkeypatch.setenv(ENV, bootstrap.export()[ENV])
    log = tmp_path / "build-x.log"
    log.write_text("go: added example.com/m v1.0.0\nx.go:1: undefined: y\n")
    status_file = tmp_path / "var" / "dev-progress.json"
    dev = Progress.resume(
        "dev",
        ["database", "build x", "clusters up"],
        stream=io.StringIO(),
        live=False,
        status_file=status_file,
        retry="python3 manage.py dev",
    )
    with dev.step("database"):
        running = read_status(status_file)
    dev.cluster_ready("host", "host", "local-1a", "https://127.0.0.1:1")
    with pytest.raises(StepFailed), dev.step("build x", log=log) as step:
        step.retry = "bash build.sh x"
        raise StepFailed("bash exited with 1")
    dev.finish(LIVE)  # a failed run stays failed
    status = read_status(status_file)

    assert [(s["title"], s["state"]) for s in running["steps"]] == [
        ("venv", "done"),  # the bootstrap's, carried over the re-exec
        ("database", "running"),
        ("build x", "pending"),
        ("clusters up", "pending"),
    ]
    assert status["state"] == FAILED
    assert [(s["title"], s["state"]) for s in status["steps"]] == [
        ("venv", "done"),
        ("database", "done"),
        ("build x", "failed"),
        ("clusters up", "pending"),
    ]
    failed = status["steps"][2]
    assert failed["retry"] == "bash build.sh x" and failed["error"] == "bash exited with 1"
    assert failed["tail"] == "x.go:1: undefined: y"  # go's module chatter left out
    assert [c["name"] for c in status["clusters"]] == ["host"] and status["retry"] == "python3 manage.py dev"
