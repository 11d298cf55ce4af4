{{/* Names: <release>-pinconsole unless the release name already contains the chart name. */}}
{{- define "pinconsole.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "pinconsole.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "pinconsole.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "pinconsole.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: pinconsole
{{- end }}

{{/* Selector labels of one component: (dict "ctx" $ "component" "web") */}}
{{- define "pinconsole.selectorLabels" -}}
app.kubernetes.io/name: {{ include "pinconsole.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "pinconsole.componentLabels" -}}
{{ include "pinconsole.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "pinconsole.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "pinconsole.secretName" -}}
{{ .Values.secrets.existingSecret | default (printf "%s-settings" (include "pinconsole.fullname" .)) }}
{{- end }}

{{/* Pod template metadata of one component: (dict "ctx" $ "component" "web" "annotations" (dict ...)) */}}
{{- define "pinconsole.podMetadata" -}}
metadata:
  labels:
    {{- include "pinconsole.selectorLabels" . | nindent 4 }}
    {{- with .ctx.Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    checksum/config: {{ include (print .ctx.Template.BasePath "/config.yaml") .ctx | sha256sum }}
    {{- with .annotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- with .ctx.Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{/* Pod-level fields shared by every component. */}}
{{- define "pinconsole.podCommon" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Container-level fields shared by every container: image, security context, settings from env. */}}
{{- define "pinconsole.containerCommon" -}}
image: {{ include "pinconsole.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
securityContext:
  {{- toYaml .Values.securityContext | nindent 2 }}
envFrom:
  - configMapRef:
      name: {{ include "pinconsole.fullname" . }}-settings
  - secretRef:
      name: {{ include "pinconsole.secretName" . }}
{{- end }}

{{/* The writable /tmp every container gets (the root filesystem is read-only). */}}
{{- define "pinconsole.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end }}

{{- define "pinconsole.tmpMount" -}}
- name: tmp
  mountPath: /tmp
{{- end }}

{{/* The portal's member kubeconfig (web and worker). */}}
{{- define "pinconsole.clustersVolume" -}}
{{- if .Values.clusters.kubeconfigSecret }}
- name: clusters-kubeconfig
  secret:
    secretName: {{ .Values.clusters.kubeconfigSecret }}
    defaultMode: 0440
{{- end }}
{{- end }}

{{- define "pinconsole.clustersMount" -}}
{{- if .Values.clusters.kubeconfigSecret }}
- name: clusters-kubeconfig
  mountPath: /etc/pinconsole/clusters
  readOnly: true
{{- end }}
{{- end }}

{{/* A private IdP's CA bundle (web): config.oidc.caBundle, named by OIDC_VERIFY_SSL. */}}
{{- define "pinconsole.oidcCaPath" -}}
/etc/pinconsole/oidc-ca/ca.crt
{{- end }}

{{- define "pinconsole.oidcCaVolume" -}}
{{- with .Values.config.oidc.caBundle }}
{{- if .configMap }}
- name: oidc-ca
  configMap:
    name: {{ .configMap }}
    items:
      - key: {{ .key }}
        path: ca.crt
{{- end }}
{{- end }}
{{- end }}

{{- define "pinconsole.oidcCaMount" -}}
{{- if .Values.config.oidc.caBundle.configMap }}
- name: oidc-ca
  mountPath: {{ include "pinconsole.oidcCaPath" . | dir }}
  readOnly: true
{{- end }}
{{- end }}

{{- define "pinconsole.serviceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "pinconsole.fullname" .ctx }}-{{ .component }}
  labels:
    {{- include "pinconsole.componentLabels" . | nindent 4 }}
  {{- with .ctx.Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: {{ .automount }}
{{- end }}

{{- define "pinconsole.databaseUrl" -}}
{{- $pg := .Values.postgresql }}
{{- $auth := $pg.user }}
{{- if $pg.password }}{{ $auth = printf "%s:%s" $pg.user (urlquery $pg.password) }}{{ end }}
{{- printf "postgres://%s@%s:%v/%s?sslmode=%s" $auth $pg.host $pg.port $pg.database $pg.sslmode }}
{{- end }}

{{/* The pincompute.io workload kinds (pincompute/kinds.py; tests/deploy checks the two lists agree). */}}
{{- define "pinconsole.workloadPlurals" -}}
[pinapps, pinpods, pinscalers, pinterestcronjobs, pinterestdaemons, pinterestjobsets, pinterestservices, pinteresttrainingjobs]
{{- end }}

{{- define "pinconsole.workloadStatus" -}}
[pinapps/status, pinpods/status, pinscalers/status, pinterestcronjobs/status, pinterestdaemons/status, pinterestjobsets/status, pinterestservices/status, pinteresttrainingjobs/status]
{{- end }}

{{/* prometheus-client's multiprocess directory (web workers, Celery pool processes): an emptyDir per pod. */}}
{{- define "pinconsole.metricsVolume" -}}
- name: metrics
  emptyDir:
    sizeLimit: 64Mi
{{- end }}

{{- define "pinconsole.metricsMount" -}}
- name: metrics
  mountPath: /run/prometheus
{{- end }}

{{/* ALLOWED_HOSTS: ingress.host and config.allowedHosts. */}}
{{- define "pinconsole.allowedHosts" -}}
{{- concat (list .Values.ingress.host) .Values.config.allowedHosts | compact | uniq | join "," }}
{{- end }}
