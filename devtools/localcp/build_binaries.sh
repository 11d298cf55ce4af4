#!/usr/bin/env bash
# Build the local control plane binaries from Go modules, cached outside the repo keyed by version.
# Usage: build_binaries.sh [all]      builds whatever is missing; prints the bin dir
#        build_binaries.sh NAME       one binary (dex, etcd, kwok, kube-apiserver, kube-controller-manager,
#                                     kube-scheduler, kubectl, helm; or k8s for the four kubernetes ones;
#                                     node for kubelet and kube-proxy, the real-node test's, never built by `all`)
#        build_binaries.sh missing    prints the missing binaries in build order (builds nothing)
#        build_binaries.sh missing dev   the same, of the binaries the dev command's clusters run (no kubectl, dex
#                                     or helm: the tests' only), in the order it builds them, victoria-logs, mailpit
#        build_binaries.sh bindir     prints the bin dir (builds nothing)
#        build_binaries.sh helmpath   prints helm's path (builds nothing): bin/helm-<v>/helm, keyed by its own
#                                     version so a new helm never invalidates the control plane's bin dir
#        build_binaries.sh victoria-logs   builds the log archive's store (VictoriaLogs), then prints its path
#        build_binaries.sh victorialogspath   prints its path (builds nothing): bin/victorialogs-<v>/victoria-logs
#        build_binaries.sh mailpit       builds the SMTP catcher the notifications' mails go to, then prints its path
#        build_binaries.sh mailpitpath   prints its path (builds nothing): bin/mailpit-<v>/mailpit
# Env:   PINCONSOLE_CACHE (default ~/.cache/pinconsole)
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.34.10}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.5}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
DEX_VERSION="${DEX_VERSION:-v0.0.0-20260303133905-11d2eeb52b42}"   # dex v2.45.1 (no /v2 module path, so a pseudo-version)
HELM_VERSION="${HELM_VERSION:-v3.19.5}"   # the chart test's helm (deploy/helm)
VLOGS_VERSION="${VLOGS_VERSION:-v1.52.1}"   # the log archive (VictoriaLogs, Apache-2.0)
MAILPIT_VERSION="${MAILPIT_VERSION:-v1.33.1}"   # the dev stack's and the tests' SMTP server (Mailpit, MIT)

CACHE="${PINCONSOLE_CACHE:-$HOME/.cache/pinconsole}"
BIN="$CACHE/bin/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION-dex-${DEX_VERSION: -12}"
SRC="$CACHE/src"
HELM="$CACHE/bin/helm-$HELM_VERSION/helm"
VLOGS="$CACHE/bin/victorialogs-$VLOGS_VERSION/victoria-logs"
MAILPIT="$CACHE/bin/mailpit-$MAILPIT_VERSION/mailpit"
# -gcflags=all=-dwarf=false: the compiler skips the DWARF that `-ldflags -w` drops at link anyway (kube-apiserver, cold
# GOCACHE: 457 CPU-seconds instead of 503, bench/README.md's dev_builds section)
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=mod -gcflags=all=-dwarf=false"
mkdir -p "$BIN" "$SRC"

log() { echo "[build_binaries] $*" >&2; }

K8S_BINS=(kube-apiserver kube-controller-manager kube-scheduler kubectl)
ALL_BINS=(dex etcd kwok "${K8S_BINS[@]}")   # build order of `all` (then helm, which lives outside $BIN)
DEV_BINS=(etcd kwok kube-apiserver kube-controller-manager kube-scheduler)   # what `manage.py dev` runs
NODE_BINS=(kubelet kube-proxy)   # the real-node test's (tests/harness/realnode.py), same bin dir, built on demand

build_k8s() {
  local want=("$@") missing=()
  [[ ${#want[@]} -eq 0 ]] && want=("${K8S_BINS[@]}")
  for b in "${want[@]}"; do [[ -x "$BIN/$b" ]] || missing+=("$b"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  log "building kubernetes $K8S_VERSION: ${missing[*]}"
  local dir="$SRC/k8s-$K8S_VERSION" S="v0${K8S_VERSION#v1}" minor
  minor="$(echo "$K8S_VERSION" | cut -d. -f2)"
  mkdir -p "$dir" && cd "$dir"
  if [[ ! -f go.mod ]]; then
    local gomod
    gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | python3 -c 'import json,sys;print(json.load(sys.stdin)["GoMod"])')"
    { echo "module local/k8sbins"; grep -E '^(go|godebug) ' "$gomod"; echo "require k8s.io/kubernetes $K8S_VERSION"; echo "replace ("
      awk -v s="$S" '$1 ~ /^k8s\.io\// && $2=="v0.0.0" {print "\t"$1" => "$1" "s}' "$gomod"; echo ")"; } > go.mod.tmp
    mv go.mod.tmp go.mod
    printf 'package main\nimport (\n_ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n)\nfunc main(){}\n' > tools.go
    go mod tidy >&2 || true
    rm -f tools.go
  fi
  local V=k8s.io/component-base/version C=k8s.io/client-go/pkg/version LD="-s -w" p
  for p in $V $C; do
    LD="$LD -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=2026-01-01T00:00:00Z"
  done
  for b in "${missing[@]}"; do
    log "go build $b"
    go build -trimpath -pgo=off -tags grpcnotrace -ldflags "$LD" -o "$BIN/$b.tmp" "k8s.io/kubernetes/cmd/$b" >&2
    mv "$BIN/$b.tmp" "$BIN/$b"
  done
}

build_etcd() {
  [[ -x "$BIN/etcd" ]] && return 0
  log "building etcd $ETCD_VERSION"
  local dir="$SRC/etcd-$ETCD_VERSION"
  mkdir -p "$dir" && cd "$dir"
  [[ -f go.mod ]] || go mod init local/etcdbin >&2
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3 >&2
  mv "$BIN/etcd.tmp" "$BIN/etcd"
}

build_kwok() {
  [[ -x "$BIN/kwok" ]] && return 0
  log "building kwok $KWOK_VERSION"
  GOBIN="$BIN" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" >&2
}

build_dex() {
  [[ -x "$BIN/dex" ]] && return 0
  log "building dex ${DEX_VERSION: -12}"
  local dir="$SRC/dex-${DEX_VERSION: -12}"
  mkdir -p "$dir" && cd "$dir"
  [[ -f go.mod ]] || go mod init local/dexbin >&2
  go get "github.com/dexidp/dex@$DEX_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$BIN/dex.tmp" github.com/dexidp/dex/cmd/dex >&2
  mv "$BIN/dex.tmp" "$BIN/dex"
}

build_helm() {
  [[ -x "$HELM" ]] && return 0
  log "building helm $HELM_VERSION"
  local dir="$SRC/helm-$HELM_VERSION" M=helm.sh/helm/v3/internal/version
  mkdir -p "$dir" "$(dirname "$HELM")" && cd "$dir"
  [[ -f go.mod ]] || go mod init local/helmbin >&2
  go get "helm.sh/helm/v3@$HELM_VERSION" >&2
  # As helm's Makefile: the Kubernetes version `helm template`/`lint` assume is the client-go module's (else 1.20).
  local kminor LD="-s -w -X $M.version=$HELM_VERSION -X $M.gitTreeState=clean" p
  kminor="$(go list -m -f '{{.Version}}' k8s.io/client-go | cut -d. -f2)"
  for p in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    LD="$LD -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$kminor"
  done
  go build -trimpath -ldflags "$LD" -o "$HELM.tmp" helm.sh/helm/v3/cmd/helm >&2
  mv "$HELM.tmp" "$HELM"
}

build_victorialogs() {
  [[ -x "$VLOGS" ]] && return 0
  log "building victoria-logs $VLOGS_VERSION"
  local dir="$SRC/victorialogs-$VLOGS_VERSION" M=github.com/VictoriaMetrics/VictoriaLogs
  mkdir -p "$dir" "$(dirname "$VLOGS")" && cd "$dir"
  [[ -f go.mod ]] || go mod init local/victorialogsbin >&2
  go get "$M@$VLOGS_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$VLOGS.tmp" "$M/app/victoria-logs" >&2
  mv "$VLOGS.tmp" "$VLOGS"
}

build_mailpit() {
  [[ -x "$MAILPIT" ]] && return 0
  log "building mailpit $MAILPIT_VERSION"
  local dir="$SRC/mailpit-$MAILPIT_VERSION" M=github.com/axllent/mailpit
  mkdir -p "$dir" "$(dirname "$MAILPIT")" && cd "$dir"
  [[ -f go.mod ]] || go mod init local/mailpitbin >&2
  go get "$M@$MAILPIT_VERSION" >&2
  go build -trimpath -ldflags "-s -w -X $M/config.Version=$MAILPIT_VERSION" -o "$MAILPIT.tmp" "$M" >&2
  mv "$MAILPIT.tmp" "$MAILPIT"
}

what="${1:-all}"
case "$what" in
  all) build_dex; build_etcd; build_kwok; build_k8s; build_helm; build_victorialogs ;;
  dex) build_dex ;;
  etcd) build_etcd ;;
  kwok) build_kwok ;;
  k8s) build_k8s ;;
  node) build_k8s "${NODE_BINS[@]}" ;;
  helm) build_helm ;;
  victoria-logs) build_victorialogs; echo "$VLOGS"; exit 0 ;;
  victorialogspath) echo "$VLOGS"; exit 0 ;;
  mailpit) build_mailpit; echo "$MAILPIT"; exit 0 ;;
  mailpitpath) echo "$MAILPIT"; exit 0 ;;
    kube-apiserver|kube-controller-manager|kube-scheduler|kubectl|kubelet|kube-proxy) build_k8s "$what" ;;
  missing)
    if [[ "${2:-all}" == dev ]]; then
      for b in "${DEV_BINS[@]}"; do [[ -x "$BIN/$b" ]] || echo "$b"; done
    else
      for b in "${ALL_BINS[@]}"; do [[ -x "$BIN/$b" ]] || echo "$b"; done; [[ -x "$HELM" ]] || echo helm
    fi
    [[ -x "$VLOGS" ]] || echo victoria-logs   # the log archive: dev and tests both start one
    [[ -x "$MAILPIT" ]] || echo mailpit   # the SMTP server: dev and tests both start one
    exit 0 ;;
  helmpath) echo "$HELM"; exit 0 ;;
  bindir) ;;
  *) echo "unknown target $what" >&2; exit 2 ;;
esac
echo "$BIN"
