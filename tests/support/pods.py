"""Pods as a cluster holds them: a realistic one as the apiserver returns it after `kubectl apply` and a kubelet
status update; a running one with the requests, tier and workload labels that sampling reads."""

from __future__ import annotations

import json
from typing import Any

from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL


def realistic_pod(i: int = 0, namespace: str = "proj-a", phase: str = "Running") -> dict[str, Any]:
    name = f"web-7d4b9c8f6-{i:05d}"
    labels = {
        "app.kubernetes.io/name": "web",
        "pincompute.io/project": namespace,
        "pincompute.io/workload": "web",
        "pod-template-hash": "7d4b9c8f6",
    }
    container = {
        "name": "app",
        "image": "registry.local/web:1.2.3",
        "imagePullPolicy": "IfNotPresent",
        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
        "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
        "env": [{"name": "PINCOMPUTE_TIER", "value": "ondemand"}, {"name": "PINCOMPUTE_PROJECT", "value": namespace}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": True}
        ],
    }
    spec = {
        "containers": [container],
        "restartPolicy": "Always",
        "priorityClassName": "pincompute-ondemand",
        "nodeName": f"kwok-node-{i % 20:03d}",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "tolerations": [
            {
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            }
        ],
    }
    last_applied = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": {"containers": [container]},
        }
    )
    managed = [
        {
            "manager": "kubectl-client-side-apply",
            "operation": "Update",
            "apiVersion": "v1",
            "time": "2025-11-22T04:00:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {
                    "f:annotations": {".": {}, f"f:{k}": {}},
                    "f:labels": {f"f:{label}": {} for label in labels},
                },
                "f:spec": {
                    "f:containers": {
                        'k:{"name":"app"}': {
                            ".": {},
                            "f:image": {},
                            "f:imagePullPolicy": {},
                            "f:name": {},
                            "f:ports": {".": {}, 'k:{"containerPort":8080,"protocol":"TCP"}': {}},
                            "f:resources": {
                                ".": {},
                                "f:limits": {"f:cpu": {}, "f:memory": {}},
                                "f:requests": {"f:cpu": {}, "f:memory": {}},
                            },
                            "f:env": {'k:{"name":"PINCOMPUTE_TIER"}': {".": {}, "f:name": {}, "f:value": {}}},
                            "f:terminationMessagePath": {},
                            "f:terminationMessagePolicy": {},
                        }
                    },
                    "f:dnsPolicy": {},
                    "f:restartPolicy": {},
                    "f:schedulerName": {},
                },
            },
        }
        for k in ["kubectl.kubernetes.io/last-applied-configuration"]
    ] + [
        {
            "manager": "kwok",
            "operation": "Update",
            "apiVersion": "v1",
            "time": "2025-11-22T04:00:02Z",
            "fieldsType": "FieldsV1",
            "subresource": "status",
            "fieldsV1": {
                "f:status": {
                    "f:conditions": {
                        f'k:{{"type":"{t}"}}': {
                            ".": {},
                            "f:lastProbeTime": {},
                            "f:lastTransitionTime": {},
                            "f:status": {},
                            "f:type": {},
                        }
                        for t in ("Ready", "Initialized", "ContainersReady", "PodScheduled")
                    },
                    "f:containerStatuses": {},
                    "f:hostIP": {},
                    "f:phase": {},
                    "f:podIP": {},
                    "f:podIPs": {".": {}, 'k:{"ip":"10.0.0.1"}': {".": {}, "f:ip": {}}},
                    "f:startTime": {},
                }
            },
        },
    ]
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{namespace}-{i}",
            "resourceVersion": str(1000 + i),
            "creationTimestamp": "2025-11-22T04:00:00Z",
            "generateName": "web-7d4b9c8f6-",
            "labels": labels,
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": last_applied},
            "selfLink": f"/api/v1/namespaces/{namespace}/pods/{name}",
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "web-7d4b9c8f6",
                    "uid": "rs-uid-1",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "managedFields": managed,
        },
        "spec": spec,
        "status": {
            "phase": phase,
            "hostIP": "10.1.0.1",
            "podIP": f"10.0.{i // 250}.{i % 250}",
            "startTime": "2025-11-22T04:00:01Z",
            "qosClass": "Burstable",
            "conditions": [
                {"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": "2025-11-22T04:00:02Z"}
                for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")
            ],
            "containerStatuses": [
                {
                    "name": "app",
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "image": "registry.local/web:1.2.3",
                    "imageID": "",
                    "containerID": "kwok://abc",
                    "state": {"running": {"startedAt": "2025-11-22T04:00:02Z"}},
                    "lastState": {},
                }
            ],
        },
    }


def running_pod(name: str, project: str, *, cpu: str = "1", memory: str = "1Gi", gpu: str = "0",
                tier: str = "ondemand", workload: str = "web", kind: str = "PinApp",
                phase: str = "Running") -> dict[str, Any]:  # fmt: skip
    requests = {"cpu": cpu, "memory": memory, **({"nvidia.com/gpu": gpu} if gpu != "0" else {})}
    labels = {WORKLOAD_LABEL: workload, KIND_LABEL: kind} if workload else {}
    return {
        "metadata": {"name": name, "namespace": f"proj-{project}", "labels": labels},
        "spec": {
            "priorityClassName": f"pincompute-{tier}",
            "containers": [{"name": "app", "image": "busybox", "resources": {"requests": requests}}],
        },
        "status": {"phase": phase},
    }
