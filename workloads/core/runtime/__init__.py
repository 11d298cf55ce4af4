"""Runtime profile: the versioned description of what the platform injects into every pod."""

from workloads.core.labels import INJECTED_ANNOTATION, PROFILE_ANNOTATION
from workloads.core.runtime.inject import InjectedItem, InjectionReport, inject
from workloads.core.runtime.profile import Identity, RuntimeProfile, load_profile

__all__ = [
    "INJECTED_ANNOTATION",
    "PROFILE_ANNOTATION",
    "Identity",
    "InjectedItem",
    "InjectionReport",
    "RuntimeProfile",
    "inject",
    "load_profile",
]
