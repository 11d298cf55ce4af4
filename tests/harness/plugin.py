"""Session harness: real PostgreSQL, Redis and dex for the whole suite, Playwright on Debian's Chromium.

Loaded with `-p tests.harness.plugin` (pyproject addopts) so the environment is set before Django's
settings are imported. Components that cannot start fail the run; nothing is silently skipped.
PINCONSOLE_TEST_LIGHT=1 runs on SQLite and in-memory layers for a quick local loop (refused in CI).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from devtools.localcp.mailpit import Mailpit, MailpitFailed
from devtools.localcp.prometheus import MetricsFailed, Prometheus
from devtools.localcp.victorialogs import ArchiveFailed, VictoriaLogs
from tests.harness.services import ComponentFailed, Postgres, Redis, free_port

pytest_plugins = ["tests.harness.localcp"]

IN_CI = os.environ.get("CI", "").lower() == "true"
LIGHT = os.environ.get("PINCONSOLE_TEST_LIGHT") == "1"
if LIGHT and IN_CI:
    raise pytest.UsageError("PINCONSOLE_TEST_LIGHT is not allowed in CI: the suite runs on real components.")

SESSION_DIR = Path(tempfile.mkdtemp(prefix="pinconsole-test-"))
LIVE_PORT = free_port()
DEX_PORT = free_port()
DEX_STATE = SESSION_DIR / "dex-state"
OIDC_CLIENT_ID, OIDC_CLIENT_SECRET = "pinconsole", "pinconsole-test-secret"
ADMIN_GROUP = "platform-admins"
METRICS_SCRAPE_SECONDS = 2  # the session's Prometheus scrapes kwok this often (usage within two intervals)
# /readyz caches its checks for a few seconds in production; tests change clusters between requests.
os.environ.setdefault("READYZ_CACHE_SECONDS", "0")
# A test process starts hundreds of caches; each freeze would keep whatever cyclic garbage was alive at that moment
# for good. tests/clusters/kube/test_heap.py drives the freezer itself.
os.environ.setdefault("WATCH_CACHE_GC_FREEZE", "false")
# The portal's PostgreSQL pool (console.settings) counts a lent connection until it is given back. Async tests use the
# ORM from the event loop's own context (DJANGO_ALLOW_ASYNC_UNSAFE): such a context's connection is never closed, only
# garbage-collected with it, which the pool cannot see, so its slot would stay taken for the rest of the session and a
# few dozen async tests would exhaust a production-sized pool. Tests are not about capacity: here PostgreSQL's
# max_connections bounds the connections, not the pool (tests/console/test_db_pool.py checks a small one's bounds).
os.environ.setdefault("DATABASE_POOL_MAX_SIZE", "1000")

_postgres: Postgres | None = None
_redis: Redis | None = None
_archive: VictoriaLogs | None = None  # the log archive: the pod supervisors ship to it, the portal reads it
_metrics: Prometheus | None = None  # usage metrics: scrapes the control plane's kwok nodes, the portal queries it
_mail: Mailpit | None = None  # the SMTP server the notifications' mails go to; tests read them through its API


def _runs_tests(early_config: pytest.Config) -> bool:
    """False in pytest-xdist's controller: it only hands tests to its workers, and each worker (a pytest
    session of its own) starts its own PostgreSQL, Redis and control plane, so workers share nothing."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return True
    workers = getattr(early_config.known_args_namespace, "numprocesses", None)
    return not workers


def _interrupt_on_sigterm(*, forward: bool) -> None:
    """A SIGTERM (CI's job timeout, ``timeout``, a stopped job) ends the session as Ctrl-C does, so that the fixtures'
    teardowns, ``pytest_unconfigure`` and ``atexit`` stop what it started; by default the signal ends the process at
    once and leaves PostgreSQL, Redis, the control plane and the rest running. A second SIGTERM ends it at once.
    ``forward``: pytest-xdist's controller, whose workers (each with its components) the signal did not reach when
    only the controller was sent it: they are sent it first."""

    def interrupt(signum: int, _frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if forward:
            for worker in psutil.Process().children():
                with contextlib.suppress(psutil.Error):
                    worker.send_signal(signal.SIGTERM)
        raise KeyboardInterrupt(f"signal {signum}")

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def _start_backing_services() -> None:
    global _postgres, _redis, _archive, _metrics, _mail
    if LIGHT:
        return
    atexit.register(_stop_backing_services)  # a worker xdist ends never reaches pytest_unconfigure
    try:
        _postgres, _redis = Postgres(), Redis()
        _archive = VictoriaLogs(Path(tempfile.mkdtemp(prefix="pinconsole-vlogs-")), free_port())
        _metrics = Prometheus(SESSION_DIR / "prometheus", free_port(), scrape_seconds=METRICS_SCRAPE_SECONDS)
        _mail = Mailpit(Path(tempfile.mkdtemp(prefix="pinconsole-mailpit-")), free_port(), free_port())
        _postgres.start()
        _redis.start()
        _archive.start()
        _metrics.start()
        _mail.start()
    except (ComponentFailed, ArchiveFailed, MetricsFailed, MailpitFailed):
        _stop_backing_services()
        raise
    os.environ["DATABASE_URL"] = _postgres.url
    os.environ["REDIS_URL"] = _redis.url
    os.environ["LOG_ARCHIVE_URL"] = _archive.url
    os.environ["PROMETHEUS_URL"] = _metrics.url
    os.environ["PROMETHEUS_SCRAPE_SECONDS"] = str(METRICS_SCRAPE_SECONDS)
    os.environ["PROMETHEUS_TARGETS_FILE"] = str(_metrics.targets_file)  # the control plane fixture fills it
    os.environ.update(_mail.env())


def _stop_backing_services() -> None:
    """Stop each service even when stopping another fails (a test may have stopped or restarted one): the first
    failure is raised once every one was asked to stop. They stop side by side: one after another took up to a
    minute (PostgreSQL's and VictoriaLogs' flushes), time in which a worker ended by xdist left the rest running.
    Runs from ``pytest_unconfigure`` and again from ``atexit`` (a worker that never reached unconfigure): the second
    call finds nothing left. Plain threads, since an executor refuses work once the interpreter shuts down."""
    global _postgres, _redis, _archive, _metrics, _mail
    services = [(s, d) for s, d in ((_redis, None), (_postgres, None), (_archive, _archive and _archive.data_dir),
                (_metrics, None), (_mail, _mail and _mail.data_dir)) if s is not None]  # fmt: skip
    _postgres = _redis = _archive = _metrics = _mail = None
    failures: list[BaseException] = []

    def stop(service: Any, data_dir: Path | None) -> None:
        try:
            service.stop()
        except Exception as exc:  # noqa: BLE001 - collected, raised after the others stopped
            failures.append(exc)
        finally:
            if data_dir is not None:
                shutil.rmtree(data_dir, ignore_errors=True)

    threads = [threading.Thread(target=stop, args=pair, name=f"stop-{type(pair[0]).__name__}") for pair in services]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def _oidc_env() -> dict[str, str]:
    from devtools.localcp.pki import ensure_pki

    issuer = f"https://127.0.0.1:{DEX_PORT}/dex"
    return {
        "OIDC_RP_CLIENT_ID": OIDC_CLIENT_ID,
        "OIDC_RP_CLIENT_SECRET": OIDC_CLIENT_SECRET,
        "OIDC_OP_AUTHORIZATION_ENDPOINT": f"{issuer}/auth",
        "OIDC_OP_TOKEN_ENDPOINT": f"{issuer}/token",
        "OIDC_OP_USER_ENDPOINT": f"{issuer}/userinfo",
        "OIDC_OP_JWKS_ENDPOINT": f"{issuer}/keys",
        "OIDC_VERIFY_SSL": str(ensure_pki(DEX_STATE).ca_crt),
        "PLATFORM_ADMIN_GROUP": ADMIN_GROUP,
    }


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Iterator[None]:
    """Wraps pytest-django's hook so this runs before settings are imported."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "console.settings",
            "SECRET_KEY": "test-secret-key-" + "k" * 40,
            "DEBUG": "false",
            "ALLOWED_HOSTS": "localhost,127.0.0.1,testserver",
            "SECURE_SSL_REDIRECT": "false",
            "SESSION_COOKIE_SECURE": "false",
            "CSRF_COOKIE_SECURE": "false",
            "SECURE_HSTS_SECONDS": "0",
            "PINCONSOLE_DEV_LOGIN": "true",
            "PINCONSOLE_VAR_DIR": str(SESSION_DIR / "var"),
            "DJANGO_LIVE_TEST_SERVER_ADDRESS": f"127.0.0.1:{LIVE_PORT}",
            **_oidc_env(),
        }
    )
    (SESSION_DIR / "var" / "staticfiles").mkdir(parents=True, exist_ok=True)
    runs_tests = _runs_tests(early_config)
    _interrupt_on_sigterm(forward=not runs_tests)
    if runs_tests:
        _start_backing_services()
    return (yield)


def pytest_configure(config: pytest.Config) -> None:
    from tests.harness import static_index

    static_index.share()


def pytest_unconfigure(config: pytest.Config) -> None:
    _stop_backing_services()
    if "PINCONSOLE_SCREENSHOTS" not in os.environ:
        shutil.rmtree(SESSION_DIR, ignore_errors=True)


# The files that take longest (each a minute or more on 2 cores: `--durations` at the end of every run says which),
# started first so that no worker is left with one of them while the others are done.
LONGEST_FIRST = (
    "tests/deploy/test_real_node.py",
    "tests/load/test_load.py",
    "tests/api_contract/test_schemathesis.py",
    "tests/devtools/test_dev_command.py",
    "tests/pincompute/operator/federation/test_federation_crash.py",
    "tests/devtools/test_dev_fresh_machine.py",
    "tests/clusters/test_member_stopped.py",
    "tests/pincompute/operator/federation/test_member_refused.py",
    "tests/deploy/test_image_runs.py",
    "tests/sdk/test_cli_kubectl_real_stack.py",
    "tests/pincompute/operator/federation/test_failover_live.py",
    "tests/pincompute/operator/federation/test_config_copies_live.py",
    "tests/projects/provisioning/test_network_live.py",
    "tests/debugging/test_live_access_expiry.py",
    "tests/debugging/test_live_follow_archive.py",
    "tests/workloads/history/test_history_live.py",
    "tests/webhooks/test_worker.py",
    "tests/workloads/test_largest_fit_live.py",
    "tests/rightsizing/test_recommend_live.py",
    "tests/usage/test_cost_by_use_live.py",
)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Browser tests last: Playwright's sync API keeps an event loop running in the main thread for the
    rest of the session, and async tests (websocket consumers) cannot start their own after that. Under
    pytest-xdist (``--dist loadfile --no-loadscope-reorder``, pyproject) each worker runs whole files in
    this order, so the same holds per worker; the longest files go first."""

    def order(item: pytest.Item) -> tuple[bool, int]:
        path = item.nodeid.split("::", 1)[0]
        first = LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)
        return item.get_closest_marker("browser") is not None, first

    items.sort(key=order)


@pytest.fixture(scope="session")
def log_archive() -> VictoriaLogs:
    """The session's VictoriaLogs (its URL is ``LOG_ARCHIVE_URL``); a test may stop and start it again."""
    if _archive is None:
        pytest.fail("no log archive: PINCONSOLE_TEST_LIGHT runs without VictoriaLogs", pytrace=False)
    return _archive


@pytest.fixture(scope="session")
def usage_metrics() -> Prometheus:
    """The session's Prometheus (its URL is ``PROMETHEUS_URL``); it scrapes the ``local_control_plane``'s nodes."""
    if _metrics is None:
        pytest.fail("no Prometheus: PINCONSOLE_TEST_LIGHT runs without it", pytrace=False)
    return _metrics


@pytest.fixture(scope="session")
def mailpit() -> Mailpit:
    """The session's Mailpit (``EMAIL_HOST``/``EMAIL_PORT`` point at it); tests read the mails through its API."""
    if _mail is None:
        pytest.fail("no mail server: PINCONSOLE_TEST_LIGHT runs without Mailpit", pytrace=False)
    return _mail


@pytest.fixture(scope="session")
def live_port() -> int:
    return LIVE_PORT


@pytest.fixture(scope="session")
def oidc_provider() -> Iterator[object]:
    """dex with two users: alice (group devs) and root (group platform-admins); password 'correct-horse'."""
    from devtools.localcp.dex import DexServer

    dex = DexServer(
        DEX_STATE,
        port=DEX_PORT,
        users=[
            {"email": "alice@example.com", "username": "alice", "password": "correct-horse", "groups": ["devs"]},
            {
                "email": "root@example.com",
                "username": "root",
                "password": "correct-horse",
                "groups": ["devs", ADMIN_GROUP],
            },
        ],
        clients=[
            {
                "id": OIDC_CLIENT_ID,
                "secret": OIDC_CLIENT_SECRET,
                "name": "PinConsole",
                "redirect_uris": [f"http://127.0.0.1:{LIVE_PORT}/oidc/callback/"],
            }
        ],
    )
    try:
        dex.start()
    except Exception as exc:  # noqa: BLE001 - any start failure is reported with the component's name
        pytest.fail(f"dex could not start: {exc}", pytrace=False)
    yield dex
    dex.stop()


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.fail("Debian's /usr/bin/chromium is missing (apt-get install chromium)", pytrace=False)
    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(ignore_https_errors=True, viewport={"width": 1360, "height": 900})  # type: ignore[attr-defined]
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    path = Path(os.environ.get("PINCONSOLE_SCREENSHOTS", SESSION_DIR / "screenshots"))
    path.mkdir(parents=True, exist_ok=True)
    return path
