"""The dev command's tests' ``go``: the build script runs as on a fresh machine, its module steps by the real go,
but a ``go build``/``go install`` of a control-plane program waits for the test's go-ahead (the file
``$FAKE_GO_GATE``), then copies the real binary already built in ``$FAKE_GO_BINARIES``, or fails like a compile
error when the program is ``$FAKE_GO_FAIL``. Anything else (podshim, module commands) is the real go's."""

import os
import shutil
import sys
import time
from pathlib import Path

PROGRAMS = {
    "go.etcd.io/etcd/server/v3": "etcd",
    "sigs.k8s.io/kwok/cmd/kwok": "kwok",
    "k8s.io/kubernetes/cmd/kube-apiserver": "kube-apiserver",
    "k8s.io/kubernetes/cmd/kube-controller-manager": "kube-controller-manager",
    "k8s.io/kubernetes/cmd/kube-scheduler": "kube-scheduler",
    "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs": "victoria-logs",
    "github.com/axllent/mailpit": "mailpit",
}
# Programs cached outside the Kubernetes bin dir: where the suite's copy is.
ELSEWHERE = {"victoria-logs": "FAKE_GO_VICTORIA_LOGS", "mailpit": "FAKE_GO_MAILPIT"}


def main(args: list[str]) -> None:
    real = os.environ["FAKE_GO_REAL"]
    programs = [PROGRAMS[a.split("@")[0]] for a in args if a.split("@")[0] in PROGRAMS]
    if not args or args[0] not in ("build", "install") or not programs:
        os.execv(real, [real, *args])
    gate = Path(os.environ["FAKE_GO_GATE"])
    while not gate.exists():
        time.sleep(0.2)
    if os.environ.get("FAKE_GO_FAIL") in programs:
        print(
            f"# {programs[0]}\nfake/compile.go:12:3: undefined: fakeSymbol (the test's failing build)", file=sys.stderr
        )
        sys.exit(1)
    out = args[args.index("-o") + 1] if "-o" in args else os.environ["GOBIN"] + "/"
    for program in programs:
        target = Path(out, program) if out.endswith("/") else Path(out)
        source = (
            Path(os.environ[ELSEWHERE[program]])
            if program in ELSEWHERE
            else Path(os.environ["FAKE_GO_BINARIES"], program)
        )
        shutil.copy2(source, target)


if __name__ == "__main__":
    main(sys.argv[1:])
