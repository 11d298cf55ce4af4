"""PinConsole settings: one module, everything from the environment.

The embedded default (no environment at all but DEBUG=true, as the dev command sets it) runs on
SQLite, an in-memory channel layer and eager Celery tasks. Production sets DATABASE_URL, REDIS_URL,
SECRET_KEY, ALLOWED_HOSTS and the OIDC_* variables.
"""

from __future__ import annotations

import json
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

from console.env import env_bool, env_int, env_list, env_map, env_required, env_str, origin_of

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("PINCONSOLE_VAR_DIR", str(BASE_DIR / "var")) or BASE_DIR / "var")

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY") or (
    "dev-insecure-key-only-for-debug-" + "x" * 32 if DEBUG else env_required("SECRET_KEY")
)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# --- security posture: production values unless DEBUG, each overridable --------------------------
_secure_default = not DEBUG
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", _secure_default)
# A scraper reaches /metrics on the pod's address in plain HTTP, with a bearer token: not redirected to https.
SECURE_REDIRECT_EXEMPT = [r"^metrics$"]
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", _secure_default)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", _secure_default)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if _secure_default else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", SECURE_HSTS_SECONDS > 0)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY") else None
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

INSTALLED_APPS = [
    "console.apps.PortalAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "django_htmx",
    "mozilla_django_oidc",
    "base",
    "accounts",
    "console",
    "projects",
    "clusters",
    "workloads",
    "workloads.history",
    "debugging",
    "usage",
    "search",
    "rightsizing",
    "tools",
    "robots",
    "webhooks",
    "configs",
    "notifications",
]

MIDDLEWARE = [
    "base.requestid.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "base.metrics_hooks.RequestMetricsMiddleware",  # after static files: counts the portal's own routes
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "base.middleware.ServiceErrorMiddleware",
    # a body over the limit (413) or gzipped (415), refused before any view, CSRF check or parser reads it: every
    # middleware's request half runs before the CSRF check's process_view; inside ServiceErrorMiddleware, so an htmx
    # form gets the message as a toast
    "base.bodies.BodyGateMiddleware",
]
if DEBUG:  # Django's technical 404 page (its URL list) would answer instead of the portal's 404 page
    MIDDLEWARE.append("console.middleware.NotFoundMiddleware")

ROOT_URLCONF = "console.urls"
ASGI_APPLICATION = "console.asgi.application"
WSGI_APPLICATION = "console.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "console.context_processors.portal",
            ],
        },
    },
]

_database_url = env_str("DATABASE_URL")
if not _database_url:  # the embedded default: a SQLite file under var/
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    _database_url = f"sqlite:///{VAR_DIR / 'pinconsole.sqlite3'}"
# PostgreSQL through psycopg's connection pool (Django's OPTIONS["pool"]), one pool per process. Under ASGI every
# request and every websocket's database_sync_to_async call runs on a thread of its own: CONN_MAX_AGE=0 opens a new
# connection (a server process) for each, and persistent connections (CONN_MAX_AGE>0) would stay open per thread.
# The pool lends a connection to a thread for one request (or one call) and takes it back when Django closes it;
# past DATABASE_POOL_MAX_SIZE lent at once, a thread waits up to DATABASE_POOL_TIMEOUT seconds for one. The same
# wait is how long a request takes to learn that the database is down (the pool has no connection to lend): it is
# then answered 503 with Retry-After (base.api.database_unavailable), so the wait is short. A connection attempt
# waits DATABASE_CONNECT_TIMEOUT seconds for the server (libpq's connect_timeout; a hung server or a dropped route
# would otherwise hold the pool's worker, or the request when there is no pool, for minutes).
DATABASE_POOL_MAX_SIZE = env_int("DATABASE_POOL_MAX_SIZE", 20)  # 0: no pool, a new connection per request
DATABASE_POOL_TIMEOUT = env_int("DATABASE_POOL_TIMEOUT", 5)
DATABASE_CONNECT_TIMEOUT = env_int("DATABASE_CONNECT_TIMEOUT", 3)
DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0))}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # a ?connect_timeout= in the URL wins
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", DATABASE_CONNECT_TIMEOUT)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and DATABASE_POOL_MAX_SIZE > 0:
    if DATABASES["default"]["CONN_MAX_AGE"]:
        raise ImproperlyConfigured("DATABASE_CONN_MAX_AGE needs DATABASE_POOL_MAX_SIZE=0: the pool replaces it.")
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # a lent connection is checked first (a restarted server)
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, DATABASE_POOL_MAX_SIZE),
        "max_size": DATABASE_POOL_MAX_SIZE,
        "timeout": DATABASE_POOL_TIMEOUT,
        "name": "pinconsole",
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite has one writer at a time. A transaction takes the write lock when it begins (IMMEDIATE), waiting up to
    # `timeout` seconds for it: a deferred one that read first failed at once with "database is locked" when it
    # came to write while another write was in flight (12 concurrent project creations: 11 answered 500). WAL lets
    # reads go on beside the writer.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20, "init_command": "PRAGMA journal_mode=WAL;"}
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer, Celery broker, cache. Absent: in-memory and eager ------------------------
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "capacity": 1000, "expiry": 30},
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # A Redis that stops answering fails a cache call in seconds, not at the kernel's TCP timeout.
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A pool process killed mid-task (SIGKILL, the OOM killer) is a WorkerLostError in the worker that stays up: without
# this the task is acknowledged and lost. With it, the message goes back to the queue at once (every task is
# idempotent; provision_on_cluster gives up after a few such redeliveries, so a task that kills its worker every
# time does not loop). A task over its hard time limit is acknowledged as failed, never handed out again.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "pinconsole"
# A task taken by a worker that dies (SIGKILL, OOM, lost node) is unacknowledged (acks_late): the broker hands it to
# another worker once this many seconds have passed since delivery. Every task is idempotent and short, and a
# longer run than this would merely be repeated; the reconcile pass below catches what this misses.
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 600)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
# Provisioning: the periodic pass that provisions what is missing, behind, failed or older than the
# resync age (drift repair), and every project on a newly registered cluster (projects.tasks.reconcile_all).
PROVISIONING_RECONCILE_SECONDS = env_int("PROVISIONING_RECONCILE_SECONDS", 60)
PROVISIONING_RESYNC_MINUTES = env_int("PROVISIONING_RESYNC_MINUTES", 30)
# An attempt this old was killed: run again (a provisioning task's hard time limit is 120 s: projects.tasks).
PROVISIONING_STUCK_SECONDS = env_int("PROVISIONING_STUCK_SECONDS", 180)
# The registry's MemberCluster objects on the host: a level-triggered pass (clusters.tasks.sync_member_clusters).
MEMBER_CLUSTER_SYNC_SECONDS = env_int("MEMBER_CLUSTER_SYNC_SECONDS", 60)
CELERY_BEAT_MAX_INTERVAL = 60  # beat ticks at least this often: its heartbeat's age (console/beat.py) stays under it
CELERY_BEAT_SCHEDULE = {
    "probe-clusters": {"task": "clusters.probe_all", "schedule": env_int("CLUSTER_PROBE_SECONDS", 30)},
    "reconcile-provisioning": {"task": "projects.reconcile_all", "schedule": PROVISIONING_RECONCILE_SECONDS},
    "sync-member-clusters": {"task": "clusters.sync_member_clusters", "schedule": MEMBER_CLUSTER_SYNC_SECONDS},
    "sample-usage": {"task": "usage.sample", "schedule": 60.0},  # minute samples, then the hourly roll-up
    "clear-expired-sessions": {"task": "accounts.clear_expired_sessions", "schedule": 3600.0},
    "expire-access-grants": {"task": "projects.expire_access_grants", "schedule": env_int("ACCESS_EXPIRY_SECONDS", 30)},
    "notification-digest": {"task": "notifications.send_digests", "schedule": 86400.0},
    "tell-workload-changes": {"task": "workloads.tell_changes", "schedule": env_int("WORKLOAD_NOTICE_SECONDS", 30)},
    "prune-history": {"task": "history.prune", "schedule": 3600.0},
}
# Time-limited access (projects/access_requests): the longest a grant may last, the shortest, and how long before its
# end access_expiring is sent. The end holds by the clock in every check; the beat task above closes it.
# A workload not admitted this long is told to its project (workloads.state_notices, on the pass above).
WORKLOAD_ADMISSION_WAIT_SECONDS = env_int("WORKLOAD_ADMISSION_WAIT_SECONDS", 3600)
ACCESS_GRANT_MAX_SECONDS = env_int("ACCESS_GRANT_MAX_SECONDS", 7 * 24 * 3600)
ACCESS_GRANT_MIN_SECONDS = env_int("ACCESS_GRANT_MIN_SECONDS", 300)
ACCESS_EXPIRY_WARNING_SECONDS = env_int("ACCESS_EXPIRY_WARNING_SECONDS", 900)
# --- notifications (notifications/): email over SMTP; links in mails start with PORTAL_URL ----------------
EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = env_str("EMAIL_HOST", "localhost") or "localhost"
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "") or ""
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "") or ""
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "pinconsole@localhost") or "pinconsole@localhost"
PORTAL_URL = env_str("PORTAL_URL", "http://localhost:8000") or "http://localhost:8000"
# Project webhooks (webhooks/): a URL resolving to a private, loopback or link-local address is refused unless this
# is set (dev and tests, where receivers run on 127.0.0.1). Attempts per delivery, Celery's backoff factor (1, 2, 4 s
# ... up to the max), the POST's timeout, and the failed attempts in a row that disable a hook.
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", DEBUG)
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 5)
WEBHOOK_RETRY_BACKOFF_SECONDS = env_int("WEBHOOK_RETRY_BACKOFF_SECONDS", 10)
WEBHOOK_RETRY_BACKOFF_MAX_SECONDS = env_int("WEBHOOK_RETRY_BACKOFF_MAX_SECONDS", 600)
WEBHOOK_TIMEOUT_SECONDS = env_int("WEBHOOK_TIMEOUT_SECONDS", 10)
WEBHOOK_DISABLE_AFTER = env_int("WEBHOOK_DISABLE_AFTER", 10)
# --- usage and chargeback (usage/) -------------------------------------------------------------------------
USAGE_MINUTE_RETENTION_HOURS = env_int("USAGE_MINUTE_RETENTION_HOURS", 48)  # minute rows, once rolled up
USAGE_HOURLY_RETENTION_DAYS = env_int("USAGE_HOURLY_RETENTION_DAYS", 400)
USAGE_GAP_FILL_MINUTES = env_int("USAGE_GAP_FILL_MINUTES", 10)  # missed minutes up to this carry the next sample
USAGE_CURRENCY = env_str("USAGE_CURRENCY", "USD") or "USD"
# Container use (CPU, memory) from Prometheus (usage.prom): the kubelet's /metrics/resource series. Empty: the use
# pages say there are no metrics. Answers are cached for one scrape interval.
PROMETHEUS_URL = env_str("PROMETHEUS_URL", "")
GRAFANA_URL = env_str("GRAFANA_URL", "")  # the tools page links to it when set (tools/catalog.py)
PROMETHEUS_SCRAPE_SECONDS = env_int("PROMETHEUS_SCRAPE_SECONDS", 15)
PROMETHEUS_TIMEOUT_SECONDS = env_int("PROMETHEUS_TIMEOUT_SECONDS", 10)
# --- workload history (workloads/history/) ------------------------------------------------------------------
HISTORY_RETENTION_DAYS = env_int("HISTORY_RETENTION_DAYS", 90)  # entries, and deleted workloads, older than this go
# the federation operator's username on the host and on the members (``system:serviceaccount:NS:NAME``): provisioning
# binds its per-project rights on the project's Secrets/ConfigMaps to it (pincompute/federation_rights.py); empty:
# none bound (the local stack's operator is the clusters' admin)
FEDERATION_OPERATOR_USERNAME = env_str("FEDERATION_OPERATOR_USERNAME", "") or ""
FEDERATION_MEMBER_OPERATOR_USERNAME = env_str("FEDERATION_MEMBER_OPERATOR_USERNAME", "") or FEDERATION_OPERATOR_USERNAME
# the ClusterRoles the chart installs for them, named per release (pincompute/federation_rights.py)
FEDERATION_HOST_CONFIGS_ROLE = env_str("FEDERATION_HOST_CONFIGS_ROLE", "") or "pincompute-federation-project-configs"
FEDERATION_MEMBER_COPIES_ROLE = env_str("FEDERATION_MEMBER_COPIES_ROLE", "") or "pincompute-federation-config-copies"
# the portal's identities on the host (comma-separated; web and worker): bound per project namespace to the ClusterRole
# that lets them edit the project's Secrets/ConfigMaps (configs/host_objects.py); empty: none bound (the local stack)
PORTAL_CONFIGS_USERNAMES = [u for u in (env_str("PORTAL_CONFIGS_USERNAMES", "") or "").split(",") if u.strip()]
PORTAL_CONFIGS_ROLE = env_str("PORTAL_CONFIGS_ROLE", "") or "pincompute-portal-project-configs"
HISTORY_RECORD_SECONDS = env_int("HISTORY_RECORD_SECONDS", 2)  # the recorder's pass over the watch caches
# a deleted workload's pods' Events (their termination) are still recorded this long after its deletion
HISTORY_AFTER_DELETION_SECONDS = env_int("HISTORY_AFTER_DELETION_SECONDS", 600)

# --- authentication ----------------------------------------------------------------------------------
DEV_LOGIN_ENABLED = env_bool("PINCONSOLE_DEV_LOGIN", False)
OIDC_ENABLED = bool(env_str("OIDC_RP_CLIENT_ID"))
PLATFORM_ADMIN_GROUP = env_str("PLATFORM_ADMIN_GROUP", "platform-admins") or "platform-admins"
OIDC_GROUPS_CLAIM = env_str("OIDC_GROUPS_CLAIM", "groups") or "groups"

AUTHENTICATION_BACKENDS = []
if OIDC_ENABLED:
    AUTHENTICATION_BACKENDS.append("accounts.oidc.PortalOIDCBackend")
if DEV_LOGIN_ENABLED:
    AUTHENTICATION_BACKENDS.append("django.contrib.auth.backends.ModelBackend")

OIDC_RP_CLIENT_ID = env_str("OIDC_RP_CLIENT_ID", "")
OIDC_RP_CLIENT_SECRET = env_str("OIDC_RP_CLIENT_SECRET", "")
OIDC_RP_SIGN_ALGO = env_str("OIDC_RP_SIGN_ALGO", "RS256")
OIDC_RP_SCOPES = env_str("OIDC_RP_SCOPES", "openid email profile groups")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_OP_AUTHORIZATION_ENDPOINT", "")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_OP_TOKEN_ENDPOINT", "")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_OP_USER_ENDPOINT", "")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_OP_JWKS_ENDPOINT", "")
OIDC_OP_LOGOUT_ENDPOINT = env_str("OIDC_OP_LOGOUT_ENDPOINT", "")
# A path to a CA bundle (e.g. a private IdP) or true/false.
_oidc_verify = env_str("OIDC_VERIFY_SSL", "true") or "true"
OIDC_VERIFY_SSL = _oidc_verify if _oidc_verify not in {"true", "false"} else _oidc_verify == "true"
OIDC_TIMEOUT = env_int("OIDC_TIMEOUT", 10)
OIDC_STORE_ID_TOKEN = bool(OIDC_OP_LOGOUT_ENDPOINT)  # the id_token_hint of RP-initiated logout

# Personal API tokens: every token expires; its owner picks the days up to the maximum.
API_TOKEN_DEFAULT_DAYS = env_int("API_TOKEN_DEFAULT_DAYS", 90)
API_TOKEN_MAX_DAYS = env_int("API_TOKEN_MAX_DAYS", 365)
ROBOT_TOKEN_MAX_DAYS = env_int("ROBOT_TOKEN_MAX_DAYS", 90)  # a robot account's token lives at most this long

# --- Content-Security-Policy (django-csp): scripts only from this origin, never inline or eval'd ---------------
# Styles allow inline because xterm.js, Chart.js and Redoc set element styles; no script does.
_csp_forms = [SELF] + ([_origin] if (_origin := origin_of(OIDC_OP_LOGOUT_ENDPOINT)) else [])
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],  # same-origin fetch, htmx and websockets (CSP3: 'self' covers ws/wss)
        "worker-src": [SELF, "blob:"],  # Redoc's search worker
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": _csp_forms,  # sign-out may continue to the identity provider's logout
    },
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# --- request bodies (base.bodies) ---------------------------------------------------------------------------
# Every API write and page form: a body over this many bytes is refused (413) before it is read or parsed. Django's
# own form-data bound is the same; a workload document (YAML or JSON) is bounded at 512 KiB on its own as well
# (pincompute.documents.MAX_BYTES).
REQUEST_BODY_MAX_BYTES = env_int("REQUEST_BODY_MAX_BYTES", 512 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES

# --- API -----------------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's JSON parser, refusing (400, by path) keys and strings UTF-8 cannot encode: a lone surrogate reached the
    # error body or the database and answered 500 (base.parsers)
    "DEFAULT_PARSER_CLASSES": [
        "base.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "base.api_schema.ContractSchema",
    "EXCEPTION_HANDLER": "base.api.api_exception_handler",
    "DEFAULT_PAGINATION_CLASS": "base.api.StrictLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_THROTTLE_CLASSES": ["base.throttling.UserThrottle"],
    "DEFAULT_THROTTLE_RATES": {"user": env_str("API_RATE_LIMIT", "6000/min")},
}
# Per-user limits of the Compute API's workload, insight and debugging endpoints (base.throttling), reads and
# writes counted apart; over a limit is 429 with Retry-After.
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] |= {
    "api-read": env_str("API_READ_RATE_LIMIT", "1200/min"),
    "api-write": env_str("API_WRITE_RATE_LIMIT", "120/min"),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "PinCompute API",
    "DESCRIPTION": "Workload, operation and insight APIs of the PinCompute platform.",
    "VERSION": "v1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # the notification events: one name for the choice set the list, its filter and the preferences all use
    "ENUM_NAME_OVERRIDES": {"NotificationEventEnum": "notifications.models.Event"},
    # each workload kind's document and spec, typed from the kind registry (after the enums are named)
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "workloads.api.spec_schemas.typed_documents",
    ],
}

# --- static files (built by npm into static/dist, served by whitenoise) ---------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [("dist", BASE_DIR / "static" / "dist")]
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if env_bool("STATIC_MANIFEST", False)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- clusters ------------------------------------------------------------------------------------------
KUBE_REQUEST_TIMEOUT = env_int("KUBE_REQUEST_TIMEOUT", 10)
WATCH_CACHE_ENABLED = env_bool("WATCH_CACHE_ENABLED", True)
# Once lists fill the caches, freeze what is alive out of the garbage collector's generations, so a full collection
# stops walking every cached pod (clusters/kube/heap.py: 262 ms at 100k pods without).
WATCH_CACHE_GC_FREEZE = env_bool("WATCH_CACHE_GC_FREEZE", True)
# Each watch asks the apiserver to end it after this many seconds (then resumes from its resourceVersion); a read
# silent for longer (plus a 15 s margin) is a dead link, noticed within a minute. Pages call a cluster's data stale
# when its caches have heard nothing for WATCH_STALE_SECONDS.
WATCH_TIMEOUT_SECONDS = env_int("WATCH_TIMEOUT_SECONDS", 40)
WATCH_STALE_SECONDS = env_int("WATCH_STALE_SECONDS", 60)

# --- health ----------------------------------------------------------------------------------------------
READYZ_CACHE_SECONDS = env_int("READYZ_CACHE_SECONDS", 5)  # /readyz runs its checks at most this often
READYZ_PROBE_TOKEN = env_str("READYZ_PROBE_TOKEN", "")  # "Authorization: Bearer <it>" sees the failed checks

# --- metrics (base.metrics; docs/metrics.md) ---------------------------------------------------------------
METRICS_TOKEN = env_str("METRICS_TOKEN", READYZ_PROBE_TOKEN)  # "Authorization: Bearer <it>" may scrape /metrics
WORKER_METRICS_ADDRESS = env_str("WORKER_METRICS_ADDRESS", "")  # host:port a Celery worker serves /metrics on

# --- live debugging: bounds of shells and log streams (debugging.policy) ------------------------------------
# The policy new projects start with until a platform admin edits the defaults (``pincompute.policy``'s document as
# JSON; {}: every kind, tier and registry, no maximum per container, sidecar exec by grant, no shell notice).
PROJECT_POLICY_DEFAULTS: dict[str, object] = json.loads(env_str("PROJECT_POLICY_DEFAULTS") or "{}")
DEBUG_SOCKETS_PER_USER = env_int("DEBUG_SOCKETS_PER_USER", 10)  # open shells + log streams, all workers
DEBUG_SHELL_IDLE_SECONDS = env_int("DEBUG_SHELL_IDLE_SECONDS", 900)  # no keystroke nor output for this long
DEBUG_SHELL_MAX_SECONDS = env_int("DEBUG_SHELL_MAX_SECONDS", 4 * 3600)
DEBUG_SHELL_WARN_SECONDS = env_int("DEBUG_SHELL_WARN_SECONDS", 60)  # the warning line before either close
DEBUG_RECHECK_SECONDS = env_int("DEBUG_RECHECK_SECONDS", 30)  # periodic re-authorization of an open socket
# How long a worker trusts the access epochs it keeps in memory after its last pong from Redis, and so the longest an
# access change waits for a silent worker (debugging.accesshub): keystrokes compare in memory, no Redis read each.
DEBUG_ACCESS_LEASE_SECONDS = env_int("DEBUG_ACCESS_LEASE_SECONDS", 1)
DEBUG_REFUSAL_AUDIT_SECONDS = env_int("DEBUG_REFUSAL_AUDIT_SECONDS", 60)  # one refusal row per user+reason
DEBUG_RECORDING_MAX_BYTES = env_int("DEBUG_RECORDING_MAX_BYTES", 2 * 1024 * 1024)  # one shell transcript, at most
# Debug containers (debugging.debug_containers): the images a developer may start in a pod, exact references; the
# first is the default. Each needs /bin/sh (the terminal's shells start with it).
DEBUG_CONTAINER_IMAGES = env_list("DEBUG_CONTAINER_IMAGES", ["busybox:1.37"])
# Network isolation (pincompute.netpol): the namespaces every project admits on every port (monitoring), and the
# ingress controller's, admitted on the ports a project's owners open to the ingress.
NETWORK_PLATFORM_NAMESPACES = env_list("NETWORK_PLATFORM_NAMESPACES", ["monitoring"])
NETWORK_INGRESS_NAMESPACES = env_list("NETWORK_INGRESS_NAMESPACES", ["ingress-nginx"])
# a member's apiserver that stopped answering, noticed: a ping on each exec websocket (answered within the timeout),
# the response headers of a log follow within a deadline, one GET /version per apiserver with open follows
DEBUG_EXEC_PING_SECONDS = env_int("DEBUG_EXEC_PING_SECONDS", 15)
DEBUG_EXEC_PING_TIMEOUT_SECONDS = env_int("DEBUG_EXEC_PING_TIMEOUT_SECONDS", 15)
DEBUG_LOG_HEADERS_SECONDS = env_int("DEBUG_LOG_HEADERS_SECONDS", 15)
DEBUG_LOG_LIVENESS_SECONDS = env_int("DEBUG_LOG_LIVENESS_SECONDS", 15)
# The log archive (VictoriaLogs): every pod's lines, shipped by the nodes' agent, read by debugging.logs.archive.
# Empty: no archive (the archived-logs page and API say so). Retention is the store's -retentionPeriod.
LOG_ARCHIVE_URL = env_str("LOG_ARCHIVE_URL", "")
LOG_ARCHIVE_TIMEOUT_SECONDS = env_int("LOG_ARCHIVE_TIMEOUT_SECONDS", 10)
LOG_ARCHIVE_FOLLOW_POLL_SECONDS = env_int("LOG_ARCHIVE_FOLLOW_POLL_SECONDS", 1)  # a follow gone on into the archive
LOG_ARCHIVE_FOLLOW_QUIET_SECONDS = env_int("LOG_ARCHIVE_FOLLOW_QUIET_SECONDS", 5)  # ... closes after this long quiet
GONE_PODS_CACHE_SECONDS = env_int("GONE_PODS_CACHE_SECONDS", 60)  # search: a project's archived pods, kept this long
DEBUG_LOG_LIVENESS_TIMEOUT_SECONDS = env_int("DEBUG_LOG_LIVENESS_TIMEOUT_SECONDS", 5)
DEBUG_LOG_REFOLLOW_SECONDS = env_int("DEBUG_LOG_REFOLLOW_SECONDS", 1)  # a workload stream's first re-follow (doubling)

# --- projects ------------------------------------------------------------------------------------------
# The largest increase of a tier grant, per resource and per change, that applies without a platform
# admin's approval (when the region's pools hold it). Override some or all: "cpu=16,memory=64Gi,gpu=1".
PROJECT_QUOTA_AUTO_APPROVE = {
    "cpu": "8",
    "memory": "32Gi",
    "gpu": "0",
    "pods": "50",
    **env_map("PROJECT_QUOTA_AUTO_APPROVE", keys=("cpu", "memory", "gpu", "pods")),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "base.requestid.RequestIdLogFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["request_id"]},
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # at DEBUG it logs every response body, a Secret's data included: never below INFO, whatever LOG_LEVEL says
        # (tests/configs/test_secret_end_to_end_live.py found a value there)
        "kubernetes.client.rest": {"level": "INFO"},
    },
}
