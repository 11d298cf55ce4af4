"""PinConsole SDK: a typed client of the Compute API (``/api/v1``) and the ``pincompute`` CLI on top of it.

from pinconsole_sdk import Client
client = Client()  # PINCONSOLE_URL / PINCONSOLE_TOKEN, or ~/.config/pinconsole/config.toml
for w in client.list_workloads(project="ads", kind="PinApp"):
    print(w.name, w.status.state)
"""

from pinconsole_sdk.client import ApplyResult, Client, Config, RetryPolicy, load_config
from pinconsole_sdk.errors import (
    ApiError,
    ConfigError,
    ConflictError,
    ConnectionFailed,
    Forbidden,
    InvalidError,
    NotFound,
    PinConsoleError,
    RateLimited,
    ServerError,
    Unauthenticated,
    Unavailable,
)
from pinconsole_sdk.models import (
    Admission,
    Condition,
    ContainerStreams,
    DebugContainer,
    ErrorDetail,
    FieldError,
    Pod,
    PodContainer,
    PodDebug,
    Shard,
    Timeline,
    TimelineEntry,
    Workload,
    WorkloadRef,
    WorkloadStatus,
)
from pinconsole_sdk.preview_models import QuotaFit, WorkloadPreview

__all__ = [
    "Admission",
    "ApiError",
    "ApplyResult",
    "Client",
    "Condition",
    "Config",
    "ConfigError",
    "ConflictError",
    "ConnectionFailed",
    "ContainerStreams",
    "DebugContainer",
    "ErrorDetail",
    "FieldError",
    "Forbidden",
    "InvalidError",
    "NotFound",
    "PinConsoleError",
    "Pod",
    "PodContainer",
    "PodDebug",
    "QuotaFit",
    "RateLimited",
    "RetryPolicy",
    "ServerError",
    "Shard",
    "Timeline",
    "TimelineEntry",
    "Unauthenticated",
    "Unavailable",
    "Workload",
    "WorkloadPreview",
    "WorkloadRef",
    "WorkloadStatus",
    "load_config",
]
