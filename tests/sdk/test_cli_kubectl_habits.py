"""``pincompute`` reads and prints as kubectl does, without a server (a fake transport answers the API's JSON):
KIND/NAME and short names, ``-n`` (and ``-p``, the project's old short option, which is ``--previous`` in ``logs``),
``-l`` sent as ``labelSelector``, ``-o wide|name|jsonpath=``, ``-A`` over every visible project, ``-w`` printing
each change until Ctrl-C, ``apply -f DIR`` (``-R``), a pod found across clusters by its name alone (ambiguous:
exit 2 naming the clusters), ``version``, and completion scripts that bash, zsh and fish parse and answer with."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from pinconsole_sdk import Client, cli_get
from pinconsole_sdk.cli import build_parser, main

Route = Callable[[httpx.Request], Any]


def workload(name: str, *, project: str = "ads", state: str = "running", ready: int = 2, version: str = "3") -> dict:
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinApp",
        "name": name,
        "project": project,
        "tier": "OnDemand",
        "version": version,
        "admission": {"admitted": True, "reason": "Admitted", "message": "fits"},
        "status": {"state": state, "reason": "", "phase": "", "ready": ready, "desired": 2, "clusters": ["member-a"]},
        "createdAt": "2026-11-22T00:00:00Z",
        "deleting": False,
        "labels": {"app": name},
        "annotations": {},
        "spec": {"replicas": 2},
    }


def pod(name: str, cluster: str, *, containers: tuple[str, ...] = ("app",)) -> dict:
    where = f"{cluster}/proj-ads/{name}"
    return {
        "name": name,
        "cluster": cluster,
        "namespace": "proj-ads",
        "workload": "web",
        "kind": "PinApp",
        "phase": "Running",
        "status": "Running",
        "ready": "1/1",
        "restarts": 0,
        "node": "kwok-1",
        "ip": "10.0.0.1",
        "started": None,
        "debug": "",
        "containers": [
            {
                "name": c,
                "shell": f"ws://portal.test/ws/exec/{where}/{c}/",
                "logs": f"ws://portal.test/ws/logs/{where}/{c}/",
            }
            for c in containers
        ],
    }


def page(items: list[dict]) -> dict:
    return {"next": None, "problems": [], "results": items}


class Api:
    """A fake transport: each request recorded; ``routes`` maps a path to its answer (a callable for a changing
    one); anything else is a 404 with the API's error body."""

    def __init__(self, routes: dict[str, Any]) -> None:
        self.routes, self.requests = routes, []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.routes.get(request.url.path)
        if answer is None:
            error = {"status": 404, "code": "not_found", "message": "no such thing", "fields": [], "request_id": "r"}
            return httpx.Response(404, json={"error": error})
        return httpx.Response(200, json=answer(request) if callable(answer) else answer)

    def queries(self, path: str) -> list[dict[str, list[str]]]:
        return [parse_qs(r.url.query.decode()) for r in self.requests if r.url.path == path]


def run(api: Api, *argv: str) -> tuple[int, str, str]:
    client = Client("http://portal.test", "pct_test", transport=httpx.MockTransport(api), env={})
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err, client=client)
    return code, out.getvalue(), err.getvalue()


ONE = "/api/v1/projects/ads/workloads/PinApp/"
LIST = "/api/v1/projects/ads/workloads/"


# --- names and projects ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ("get", "papp/web", "papp/shop", "-n", "ads"),
        ("get", "papp", "web", "shop", "--namespace", "ads"),
        ("get", "pinapps", "web", "shop", "-p", "ads"),  # -p: the project's old short option, kept
        ("-n", "ads", "get", "PinApp/web", "apps/shop"),
    ],
)
def test_workloads_are_named_kind_slash_name_or_kind_then_names(argv):
    api = Api({ONE + "web/": workload("web"), ONE + "shop/": workload("shop")})

    code, out, err = run(api, *argv, "-o", "name")

    assert (code, out, err) == (0, "pinapp/web\npinapp/shop\n", "")


def test_kind_slash_name_and_a_separate_kind_do_not_mix():
    code, out, err = run(Api({}), "get", "papp/web", "shop", "-n", "ads")

    assert code == 2 and out == "" and "KIND NAME... or KIND/NAME..." in err


def test_in_logs_p_is_previous_and_n_the_project():
    args = build_parser().parse_args(["logs", "workload/web", "-p", "-n", "ads"])
    assert (args.previous, args.project, args.target) == (True, "ads", "workload/web")
    assert build_parser().parse_args(["describe", "papp/web", "-p", "ads"]).project == "ads"
    with pytest.raises(SystemExit) as usage:  # the old "logs POD -p PROJECT": a usage error, not a silent --previous
        build_parser().parse_args(["logs", "web-1", "-p", "ads"])
    assert usage.value.code == 2


# --- -l, -o, -A ---------------------------------------------------------------------------------------------------


def test_a_selector_is_sent_as_the_apis_label_selector():
    api = Api({LIST: page([workload("web")]), "/api/v1/projects/ads/pods/": page([pod("web-1", "member-a")])})

    assert run(api, "get", "papp", "-n", "ads", "-l", "app in (web,shop),!canary")[0] == 0
    assert run(api, "get", "pods", "-n", "ads", "--selector", "app=web")[0] == 0

    assert api.queries(LIST)[0]["labelSelector"] == ["app in (web,shop),!canary"]
    assert api.queries("/api/v1/projects/ads/pods/")[0]["labelSelector"] == ["app=web"]


def test_wide_adds_columns_and_name_prints_kind_slash_name():
    api = Api({LIST: page([workload("web")]), "/api/v1/projects/ads/pods/": page([pod("web-1", "member-a")])})

    _, table, _ = run(api, "get", "papp", "-n", "ads")
    _, wide, _ = run(api, "get", "papp", "-n", "ads", "-o", "wide")
    _, pods, _ = run(api, "get", "pods", "-n", "ads", "-o", "wide")

    assert table.split("\n")[0].split() == ["PROJECT", "KIND", "NAME", "TIER", "STATUS", "READY", "CLUSTERS", "VERSION"]
    assert wide.split("\n")[0].split()[-3:] == ["ADMISSION", "REASON", "CREATED"]
    assert wide.split("\n")[1].split()[-3:] == ["admitted", "Admitted", "2026-11-22T00:00:00Z"]
    assert pods.split("\n")[0].split()[-3:] == ["IP", "KIND", "STARTED"] and "10.0.0.1" in pods
    assert api.queries(LIST)[1]["view"] == ["full"]  # wide reads the full view


@pytest.mark.parametrize(
    ("template", "printed"),
    [
        ("{.items[*].name}", "web shop\n"),
        ('{range .items[*]}{.name}={.status.ready}{"\\n"}{end}', "web=2\nshop=1\n"),
        ("{.items[?(@.name=='shop')].status.state}", "waiting\n"),
        ("names: {.items[0].name}", "names: web\n"),
    ],
)
def test_jsonpath_templates_read_as_kubectls(template, printed):
    api = Api({LIST: page([workload("web"), workload("shop", state="waiting", ready=1)])})

    assert run(api, "get", "papp", "-n", "ads", "-o", f"jsonpath={template}") == (0, printed, "")


@pytest.mark.parametrize("template", ["{.items[}", "{range .items[*]}{.name}", "{end}", "{.a} }", ""])
def test_a_bad_jsonpath_is_a_usage_error_before_any_request(template, capsys):
    api = Api({})

    code, _, _ = run(api, "get", "papp", "-n", "ads", "-o", f"jsonpath={template}")

    assert code == 2 and "argument -o/--output: jsonpath=" in capsys.readouterr().err and api.requests == []


def test_all_namespaces_lists_every_visible_project_and_refuses_n():
    api = Api(
        {
            "/api/v1/projects/": {
                "count": 2,
                "next": None,
                "previous": None,
                "results": [{"name": "ads"}, {"name": "ml"}],
            },
            "/api/v1/projects/ads/pods/": page([pod("web-1", "member-a")]),
            "/api/v1/projects/ml/pods/": page([pod("train-1", "member-b")]),
            "/api/v1/workloads/": page([workload("web"), workload("train", project="ml")]),
        }
    )

    code, pods, _ = run(api, "get", "pods", "-A")
    _, workloads, _ = run(api, "get", "papp", "--all-namespaces", "-o", "name")

    assert code == 0 and [line.split()[:3] for line in pods.splitlines()] == [
        ["PROJECT", "CLUSTER", "NAME"],
        ["ads", "member-a", "web-1"],
        ["ml", "member-b", "train-1"],
    ]
    assert workloads == "pinapp/web\npinapp/train\n"
    assert run(api, "get", "papp", "-A", "-n", "ads")[0] == 2


# --- -w -----------------------------------------------------------------------------------------------------------


def test_watch_prints_the_list_then_each_change_until_ctrl_c(monkeypatch):
    states = iter(
        [
            [workload("web", state="pending", ready=0, version="1"), workload("shop")],
            [workload("web", state="pending", ready=0, version="1"), workload("shop")],  # nothing changed
            [workload("web", state="running", ready=2, version="1"), workload("shop")],
            [workload("web", state="running", ready=2, version="1")],
        ]
    )
    api = Api({LIST: lambda _: page(next(states))})
    polls: list[float] = []

    def sleep(seconds: float) -> None:
        polls.append(seconds)
        if len(polls) == 4:
            raise KeyboardInterrupt

    monkeypatch.setattr(cli_get, "sleep", sleep)

    code, out, _ = run(api, "get", "papp", "-n", "ads", "-w")

    rows = [line.split() for line in out.splitlines()]
    assert code == 130 and len(api.requests) == 4
    assert [(r[2], r[4], r[5]) for r in rows[1:]] == [
        ("web", "pending", "0/2"),
        ("shop", "running", "2/2"),
        ("web", "running", "2/2"),
        ("shop", "deleted", "2/2"),
    ]


# --- apply -f DIR -------------------------------------------------------------------------------------------------


def test_apply_reads_every_yaml_yml_and_json_file_of_a_directory_and_with_r_its_subdirectories(tmp_path):
    def doc(name: str) -> str:
        return json.dumps({"apiVersion": "pincompute.io/v1", "kind": "PinApp", "metadata": {"name": name}, "spec": {}})

    (tmp_path / "a.yaml").write_text(doc("a"))
    (tmp_path / "b.yml").write_text(doc("b"))
    (tmp_path / "c.json").write_text(doc("c"))
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "d.yaml").write_text(doc("d"))
    (tmp_path / "empty").mkdir()

    def put(request: httpx.Request) -> dict:
        return workload(request.url.path.rstrip("/").rsplit("/", 1)[1])

    api = Api({ONE + name + "/": put for name in "abcd"})

    flat = run(api, "apply", "-f", str(tmp_path), "-n", "ads", "-o", "name")
    deep = run(api, "apply", "-R", "-f", str(tmp_path), "-n", "ads", "-o", "name")
    empty = run(api, "apply", "-f", str(tmp_path / "empty"), "-n", "ads")

    assert flat == (0, "pinapp/a\npinapp/b\npinapp/c\n", "")
    assert deep == (0, "pinapp/a\npinapp/b\npinapp/c\npinapp/d\n", "")
    assert empty[0] == 2 and "no .yaml, .yml, .json file in it" in empty[2]


# --- a pod by its name alone ---------------------------------------------------------------------------------------


def test_exec_and_logs_refuse_a_pod_name_on_two_clusters_naming_them_and_a_missing_one_is_not_found():
    api = Api({"/api/v1/projects/ads/pods/": page([pod("web-1", "member-a"), pod("web-1", "member-b")])})

    code, _, err = run(api, "exec", "web-1", "-n", "ads", "--", "true")
    logs = run(api, "logs", "pod/web-1", "-n", "ads")
    missing = run(api, "exec", "web-9", "-n", "ads", "--", "true")

    assert code == 2 and "(member-a, member-b): pick one with --cluster" in err
    assert logs[0] == 2 and "member-a, member-b" in logs[2]
    assert missing[0] == 3 and "No pod named web-9" in missing[2]


def test_a_workloads_logs_need_its_pods_and_file_is_one_pods():
    api = Api({"/api/v1/projects/ads/pods/": page([])})

    assert run(api, "logs", "workload/web", "-n", "ads")[0] == 3
    assert run(api, "logs", "papp/web", "-n", "ads", "--file", "/var/log/app.log")[0] == 2
    assert api.queries("/api/v1/projects/ads/pods/")[0]["workload"] == ["web"]


# --- version and completion ---------------------------------------------------------------------------------------


def test_version_shows_the_clients_and_the_servers():
    api = Api({"/api/v1/version/": {"version": "9.9.9", "api": "v1"}})

    assert run(api, "version") == (0, "Client Version: 0.1.0\nServer Version: 9.9.9 (API v1)\n", "")
    assert json.loads(run(api, "version", "-o", "json")[1]) == {
        "clientVersion": "0.1.0",
        "serverVersion": {"version": "9.9.9", "api": "v1"},
    }
    assert run(Api({}), "version", "--client") == (0, "Client Version: 0.1.0\n", "")


def script(shell: str) -> str:
    code, out, _ = run(Api({}), "completion", shell)
    assert code == 0
    return out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_completion_script_parses_in_its_shell(shell, tmp_path):
    assert shutil.which(shell), f"{shell} is installed by the bootstrap (devtools/bootstrap.py)"
    path = tmp_path / f"pincompute.{shell}"
    path.write_text(script(shell))

    checked = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True, check=False)

    assert checked.returncode == 0, checked.stderr


def test_bash_completes_commands_kinds_options_and_values(tmp_path):
    path = tmp_path / "pincompute.bash"
    path.write_text(script("bash"))

    def complete(*words: str) -> list[str]:
        line = " ".join(f"'{w}'" for w in ("pincompute", *words))
        shell = f'source {path}; COMP_WORDS=({line}); COMP_CWORD={len(words)}; _pincompute; echo "${{COMPREPLY[@]}}"'
        return subprocess.run(["bash", "-c", shell], capture_output=True, text=True, check=True).stdout.split()

    assert complete("ver") == ["version"]
    assert complete("get", "pap") == ["papp"]
    assert complete("get", "-o", "ws") == [] and complete("get", "-o", "w") == ["wide"]
    assert "--all-namespaces" in complete("get", "--a") and complete("logs", "--prev") == ["--previous"]
    assert complete("completion", "f") == ["fish"]


def test_fish_completes_commands_and_kinds(tmp_path):
    path = tmp_path / "pincompute.fish"
    path.write_text(script("fish"))

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            ["fish", "-c", f"source {path}; complete -C '{line}'"], capture_output=True, text=True, check=True
        )
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert complete("pincompute vers") == ["version"]
    assert "papp" in complete("pincompute get pa")
    assert complete("pincompute get -o w") == ["wide"]
