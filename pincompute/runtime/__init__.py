"""Runtime profile: the versioned description of what the platform injects into every pod."""

from pincompute.labels import INJECTED_ANNOTATION, PROFILE_ANNOTATION
from pincompute.runtime.inject import InjectedItem, InjectionReport, inject
from pincompute.runtime.profile import Identity, RuntimeProfile, load_profile

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
