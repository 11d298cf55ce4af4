"""Translation of the run-to-finish and infrastructure kinds: JobSet, CronJob, Daemon, TrainingJob."""

from __future__ import annotations

import json
from typing import Any

from pincompute.labels import DAEMON_PAUSED_LABEL
from pincompute.specs import PinterestCronJob, PinterestDaemon, PinterestJobSet, PinterestTrainingJob
from pincompute.specs.batch import JobSettings
from pincompute.translate.common import Context, add_env

COMPLETION_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
KUBEFLOW_PYTORCH = "kubeflow.org/v1/PyTorchJob"
KUBEFLOW_TF = "kubeflow.org/v1/TFJob"


def _index_env(name: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX}}}


def _job_spec(settings: JobSettings, template: dict[str, Any], suspend: bool) -> dict[str, Any]:
    template["spec"]["restartPolicy"] = settings.restart_policy
    spec: dict[str, Any] = {"template": template, "suspend": suspend}
    for key, value in (
        ("backoffLimit", settings.backoff_limit),
        ("ttlSecondsAfterFinished", settings.ttl_seconds_after_finished),
        ("activeDeadlineSeconds", settings.active_deadline_seconds),
    ):
        if value is not None:
            spec[key] = value
    return spec


def pinterestjobset(ctx: Context[PinterestJobSet]) -> list[dict[str, Any]]:
    """One Indexed Job: index i is shard i; SHARD_INDEX comes from the completion-index annotation."""
    jobset = ctx.workload
    pod_spec = jobset.pod.to_pod_spec()
    add_env(pod_spec, [_index_env("SHARD_INDEX"), {"name": "SHARD_COUNT", "value": str(jobset.shards)}])
    spec = _job_spec(jobset.job, ctx.pod_template(pod_spec), jobset.operations.halted)
    spec.update({"completionMode": "Indexed", "completions": jobset.shards, "parallelism": jobset.parallelism})
    return [{"apiVersion": "batch/v1", "kind": "Job", "metadata": ctx.metadata(ctx.name), "spec": spec}]


def pinterestcronjob(ctx: Context[PinterestCronJob]) -> list[dict[str, Any]]:
    cron = ctx.workload
    template = ctx.pod_template(cron.pod.to_pod_spec())
    job_spec = _job_spec(cron.job, template, False)
    del job_spec["suspend"]  # the CronJob's own suspend governs its runs
    spec: dict[str, Any] = {
        "schedule": cron.schedule,
        "concurrencyPolicy": cron.concurrency_policy,
        "suspend": cron.suspend or cron.operations.halted,
        "successfulJobsHistoryLimit": cron.successful_jobs_history_limit,
        "failedJobsHistoryLimit": cron.failed_jobs_history_limit,
        "jobTemplate": {"metadata": {"labels": ctx.labels()}, "spec": job_spec},
    }
    if cron.time_zone:
        spec["timeZone"] = cron.time_zone
    if cron.starting_deadline_seconds is not None:
        spec["startingDeadlineSeconds"] = cron.starting_deadline_seconds
    return [{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": ctx.metadata(ctx.name), "spec": spec}]


def pinterestdaemon(ctx: Context[PinterestDaemon]) -> list[dict[str, Any]]:
    """DaemonSet; pausing adds a node selector no node carries, so every daemon pod goes away."""
    daemon = ctx.workload
    pod_spec = daemon.pod.to_pod_spec()
    if daemon.operations.halted:
        pod_spec.setdefault("nodeSelector", {})[DAEMON_PAUSED_LABEL] = "true"
    strategy: dict[str, Any] = {"type": daemon.update_strategy}
    if daemon.update_strategy == "RollingUpdate":
        strategy["rollingUpdate"] = {"maxUnavailable": daemon.max_unavailable}
    spec = {
        "selector": {"matchLabels": ctx.selector()},
        "updateStrategy": strategy,
        "template": ctx.pod_template(pod_spec),
    }
    return [{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": ctx.metadata(ctx.name), "spec": spec}]


def pinteresttrainingjob(ctx: Context[PinterestTrainingJob]) -> list[dict[str, Any]]:
    """Kubeflow PyTorchJob/TFJob when the cluster has the CRD, else Indexed Job + headless Service."""
    job = ctx.workload
    wanted = KUBEFLOW_PYTORCH if job.framework == "PyTorch" else KUBEFLOW_TF
    if wanted in ctx.capabilities:
        return [_kubeflow(ctx, job)]
    return _indexed_training(ctx, job)


def _kubeflow(ctx: Context[PinterestTrainingJob], job: PinterestTrainingJob) -> dict[str, Any]:
    pod_spec = job.pod.to_pod_spec()
    port_name = "pytorchjob-port" if job.framework == "PyTorch" else "tfjob-port"
    first = pod_spec["containers"][0]
    if not any(p.get("containerPort") == job.port for p in first.get("ports") or []):
        first.setdefault("ports", []).append({"name": port_name, "containerPort": job.port})

    def replica(count: int) -> dict[str, Any]:
        return {"replicas": count, "restartPolicy": job.job.restart_policy, "template": ctx.pod_template(pod_spec)}

    run_policy: dict[str, Any] = {"suspend": job.operations.halted}
    for key, value in (
        ("backoffLimit", job.job.backoff_limit),
        ("ttlSecondsAfterFinished", job.job.ttl_seconds_after_finished),
        ("activeDeadlineSeconds", job.job.active_deadline_seconds),
    ):
        if value is not None:
            run_policy[key] = value
    if job.framework == "PyTorch":
        replicas = {"Worker": replica(job.workers)}
        if job.master_replicas:
            replicas["Master"] = replica(job.master_replicas)
        spec = {"runPolicy": run_policy, "pytorchReplicaSpecs": replicas}
        kind = "PyTorchJob"
    else:
        spec = {"runPolicy": run_policy, "tfReplicaSpecs": {"Worker": replica(job.workers)}}
        kind = "TFJob"
    return {"apiVersion": "kubeflow.org/v1", "kind": kind, "metadata": ctx.metadata(ctx.name), "spec": spec}


def _indexed_training(ctx: Context[PinterestTrainingJob], job: PinterestTrainingJob) -> list[dict[str, Any]]:
    """Rank i is completion index i; pod ``<job>-0`` (the master) is reachable as ``<job>-0.<svc>``."""
    service = ctx.name
    hosts = [f"{ctx.name}-{rank}.{service}" for rank in range(job.world_size)]
    env = [
        _index_env("RANK"),
        {"name": "WORLD_SIZE", "value": str(job.world_size)},
        {"name": "MASTER_ADDR", "value": hosts[0]},
        {"name": "MASTER_PORT", "value": str(job.port)},
    ]
    if job.framework == "TensorFlow":
        cluster = json.dumps({"worker": [f"{host}:{job.port}" for host in hosts]}, sort_keys=True)
        # $(RANK) is expanded by the kubelet from the env var defined just before it
        env.append(
            {"name": "TF_CONFIG", "value": f'{{"cluster": {cluster}, "task": {{"type": "worker", "index": $(RANK)}}}}'}
        )
    pod_spec = job.pod.to_pod_spec()
    add_env(pod_spec, env)
    pod_spec["subdomain"] = service
    spec = _job_spec(job.job, ctx.pod_template(pod_spec), job.operations.halted)
    spec.update({"completionMode": "Indexed", "completions": job.world_size, "parallelism": job.world_size})
    headless = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": ctx.metadata(service),
        "spec": {
            "clusterIP": "None",
            "publishNotReadyAddresses": True,
            "selector": ctx.selector(),
            "ports": [{"name": "rendezvous", "port": job.port, "targetPort": job.port, "protocol": "TCP"}],
        },
    }
    return [{"apiVersion": "batch/v1", "kind": "Job", "metadata": ctx.metadata(ctx.name), "spec": spec}, headless]
