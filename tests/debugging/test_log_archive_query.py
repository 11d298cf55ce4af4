"""What the portal sends the log archive: the scope is the authorized project's namespace whatever is asked, names are
checked, the user's text is one quoted phrase; and the node agent reads a pod's files without following its links."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from debugging.logs.archive import SHOWN, build_query, phrase, time_key
from devtools.localcp.pods.ship import LogShipper, _Source
from devtools.localcp.pods.watch import Pod, Registry
from pincompute.errors import Invalid
from projects.models import Project

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
NEWEST = f" | sort by (_time desc) | offset 0 | limit 1000 | fields {SHOWN}"


def test_the_scope_is_the_projects_namespace_whatever_the_parameters_say():
    query = build_query(Project(name="ads"), {"namespace": "proj-ml", "project": "ml", "pod": "web-1"}, NOW)

    params = query.params()

    assert json.loads(params["extra_stream_filters"]) == {"namespace": "proj-ads", "pod": "web-1"}
    assert params["query"] == f"*{NEWEST}" and params["end"] == "2026-11-27T12:00:00.000000Z"  # now: pages hold still


def test_the_users_text_is_one_quoted_phrase():
    text = '" or {namespace="proj-ml"} | union (*) \\'

    params = build_query(Project(name="ads"), {"q": text}, NOW).params()

    quoted = params["query"].removesuffix(NEWEST)
    assert quoted == phrase(text)
    assert quoted == '"\\" or {namespace=\\"proj-ml\\"} | union (*) \\\\"'
    assert json.loads(quoted) == text  # the escapes LogsQL reads back as the same text


def test_a_regex_source_and_stream_are_quoted_filters_and_pages_go_on_in_the_same_window():
    text = '" | delete _msg'
    params = {"regex": text, "source": "/var/log/app.log", "stream": "stderr", "order": "oldest", "limit": "10"}

    query = build_query(Project(name="ads"), params, NOW)
    sent = query.params()["query"]

    filters = f'~{phrase(text)} source:="/var/log/app.log" stream:="stderr"'
    assert sent.startswith(f"{filters} | sort by (_time asc)")
    assert " | offset 0 | limit 10 | " in sent
    assert query.next_page(10) == {"until": "2026-11-27T12:00:00.000000Z", "offset": "10"}
    assert query.next_page(9) is None  # a short page is the last
    later = build_query(Project(name="ads"), {**params, **query.next_page(10)}, NOW)
    assert " | offset 10 | limit 10 | " in later.params()["query"] and later.end == query.end


def test_times_are_durations_or_rfc3339_and_since_comes_first():
    query = build_query(Project(name="ads"), {"since": "2h", "until": "2026-11-27T11:30:00+00:00"}, NOW)

    with pytest.raises(Invalid) as exc:
        build_query(Project(name="ads"), {"since": "1h", "until": "2h"}, NOW)

    assert (query.start, query.end) == ("2026-11-27T10:00:00.000000Z", "2026-11-27T11:30:00.000000Z")
    assert [f.path for f in exc.value.fields] == ["until"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"pod": 'x"} or {pod=~".*'}, "pod"),
        ({"workload": "Web_1"}, "workload"),
        ({"container": "a/b"}, "container"),
        ({"cluster": "x" * 300}, "cluster"),
        ({"q": "x" * 501}, "q"),
        ({"q": "a\x00b"}, "q"),
        ({"limit": "0"}, "limit"),
        ({"limit": "5001"}, "limit"),
        ({"since": "yesterday"}, "since"),
        ({"until": "2026-11-27T11:30:00"}, "until"),
        ({"regex": "(unclosed"}, "regex"),
        ({"regex": "x" * 501}, "regex"),
        ({"stream": "stdin"}, "stream"),
        ({"order": "random"}, "order"),
        ({"offset": "-1"}, "offset"),
        ({"offset": "100001"}, "offset"),
        ({"source": "a\x00b"}, "source"),
    ],
)
def test_bad_input_names_its_field(params, field):
    with pytest.raises(Invalid) as exc:
        build_query(Project(name="ads"), params, NOW)

    assert [f.path for f in exc.value.fields] == [field]


def _pod_with_app_log(tmp_path: Path) -> Pod:
    fs = tmp_path / "fs"
    (fs / "var" / "log").mkdir(parents=True)
    console = tmp_path / "web-1.log"
    console.write_text("2026-11-27T12:00:00.000000000Z stdout F hello\n")
    return Pod("proj-ads", "web-1", "uid-1", fs, console, (("pincompute.io/kind", "PinApp"),), ("app",))


def test_the_agent_ships_console_and_file_lines_with_their_labels(tmp_path):
    pod = _pod_with_app_log(tmp_path)
    (pod.fs / "var" / "log" / "app.log").write_text("one\ntwo\npartial")
    shipper = LogShipper("member-a", "http://127.0.0.1:9", Registry(), tmp_path / "offsets.json")
    source = _Source(pod, shipper._labels(pod))

    console, _ = shipper._read(source, "console", None)
    files, at = shipper._read(source, "/var/log/app.log", None)

    assert [(r["_msg"], r["stream"], r["_time"]) for r in console] == [
        ("hello", "stdout", "2026-11-27T12:00:00.000000000Z")
    ]
    assert [r["_msg"] for r in files] == ["one", "two"] and at.offset == len("one\ntwo\n")  # whole lines only
    assert {r["pod"] for r in console + files} == {"web-1"} and console[0]["container"] == "app"
    assert console[0]["kind"] == "PinApp" and files[0]["source"] == "/var/log/app.log"


def test_the_agent_does_not_follow_a_link_a_pod_planted(tmp_path):
    pod = _pod_with_app_log(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text("root-only line\n")
    (pod.fs / "var" / "log" / "app.log").symlink_to(secret)
    shipper = LogShipper("member-a", "http://127.0.0.1:9", Registry(), tmp_path / "offsets.json")

    records, _ = shipper._read(_Source(pod, {}), "/var/log/app.log", None)

    assert records == []


def test_a_deleted_pods_rest_is_held_until_the_store_takes_it(tmp_path):
    pod = _pod_with_app_log(tmp_path)
    (pod.fs / "var" / "log" / "app.log").write_text("one\ntwo\n")
    shipper = LogShipper("member-a", "http://127.0.0.1:9", Registry(), tmp_path / "offsets.json")  # nothing listens
    shipper.track(pod)

    shipper.drain(pod.key)
    (pod.fs / "var" / "log" / "app.log").unlink()
    pod.console_log.unlink()  # its files go with it, as the watcher removes them
    with pytest.raises(OSError):
        shipper.ship_once()

    assert sorted(r["_msg"] for r in shipper._held) == ["hello", "one", "two"]


def test_times_sort_by_their_instant_though_the_store_trims_trailing_zeros():
    times = ["2026-11-28T03:58:28.217907Z", "2026-11-28T03:58:28.2179Z", "2026-11-28T03:58:28Z"]

    assert sorted(times, key=time_key) == ["2026-11-28T03:58:28Z", "2026-11-28T03:58:28.2179Z", times[0]]
