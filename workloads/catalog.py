"""The workload catalog as users see it: what each kind is for and what it becomes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CatalogEntry:
    kind: str
    plural: str
    title: str
    category: str
    summary: str
    becomes: str
    icon: str


CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry("PinPod", "pinpods", "PinPod", "General purpose compute",
                 "A single pod with managed sidecars, per-container update and optional persistent storage. "
                 "Good for notebooks and one-off services.", "Pod (+ PersistentVolumeClaim)", "box"),
    CatalogEntry("PinApp", "pinapps", "PinApp", "General purpose compute",
                 "A long-running application: replicas of a PinPod spread over zones, rolled out zone by zone.",
                 "Deployment per zone shard (+ Service)", "boxes"),
    CatalogEntry("PinScaler", "pinscalers", "PinScaler", "General purpose compute",
                 "Autoscaling for a PinApp on CPU, memory or a custom metric, with cooldowns, min/max and "
                 "scheduled windows.", "HorizontalPodAutoscaler (+ scheduled bounds)", "graph-up-arrow"),
    CatalogEntry("PinterestService", "pinterestservices", "Service bundle", "General purpose compute",
                 "A stateless service with its DNS name, ingress and configuration managed together.",
                 "Deployment + Service + Ingress + ConfigMap", "hdd-network"),
    CatalogEntry("PinterestJobSet", "pinterestjobsets", "Job set", "Run to finish",
                 "N parallel copies of the same container, each taking its own fraction of the work.",
                 "Indexed Job", "list-task"),
    CatalogEntry("PinterestCronJob", "pinterestcronjobs", "Cron job", "Run to finish",
                 "A periodic job on a cron schedule, with the platform runtime injected.", "CronJob", "clock"),
    CatalogEntry("PinterestTrainingJob", "pinterestrainingjobs", "Training job", "Run to finish",
                 "Distributed PyTorch or TensorFlow training with rank and world size wired in.",
                 "PyTorchJob/TFJob, or Indexed Job + headless Service", "cpu"),
    CatalogEntry("PinterestDaemon", "pinterestdaemons", "Daemon", "Infrastructure services",
                 "An infrastructure agent that runs one copy on every node.", "DaemonSet", "hdd-stack"),
)

BY_KIND = {entry.kind: entry for entry in CATALOG}
