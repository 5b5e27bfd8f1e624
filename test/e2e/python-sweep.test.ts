// The official Kubernetes Python client (Debian's python3-kubernetes) used as people use it beyond python-client.py:
// python-sweep.py watches namespaced, cluster-scoped and custom collections (bookmarks, a 410 Gone as an ERROR event
// and as the client's ApiException), drives the dynamic client (server-side apply, status and scale), create_from_yaml,
// the typed patches, paging, delete options, CustomObjectsApi with its status and scale methods, timestamps as kube
// re-encodes them, logs and a bearer token, and prints what it saw; this test compares it exactly. Among the expected
// values: a custom resource's Scale written without a resourceVersion is applied (co_scale_replace), and built-in
// Time/MicroTime values come back in UTC, whole seconds or six digits (time_event, time_lease, time_python).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCommand, startTestServer, type TestServer } from './helpers.ts';

/** Debian's interpreter: the package installs the client for it, not for other Pythons on PATH. */
const PYTHON = '/usr/bin/python3';

let s: TestServer;
before(async () => {
  // A 2 s history window: the script's stale resourceVersion falls out of it (410 Gone).
  s = await startTestServer({ historyWindowSeconds: 2, simulateWorkloads: { nodes: 1, podStartupMs: 20, podTerminationMs: 20 } });
});
after(async () => s?.close());

test('the Python client watches, applies, patches, pages, deletes and decodes as against kube-apiserver', async () => {
  const kubeconfig = await s.writeKubeconfig('python-sweep', { clientCert: s.clientCert, clientKey: s.clientKey });
  const r = await runCommand(PYTHON, [join(import.meta.dirname, 'python-sweep.py'), kubeconfig], { timeoutMs: 120_000, env: process.env });
  assert.equal(r.code, 0, `python-sweep.py failed (is python3-kubernetes installed for ${PYTHON}?): ${r.stderr}`);
  assert.deepEqual(JSON.parse(r.stdout), {
    version: ["v1.31.0", "31"],
    apis: ["apps/v1", "apiextensions.k8s.io/v1", "coordination.k8s.io/v1"],
    bearer: ["system:serviceaccount:sweep:bot", []],
    bad_token: [401, "Unauthorized", {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "Unauthorized", "reason": "Unauthorized", "code": 401}],
    from_yaml: [["V1ConfigMap"], ["V1Service"], ["V1Deployment"], ["V1Secret", "V1Role"]],
    from_yaml_again: [[409, "configmaps \"y1\" already exists"], [409, "services \"web\" already exists"], [409, "deployments.apps \"web\" already exists"], [409, "secrets \"s1\" already exists"], [409, "roles.rbac.authorization.k8s.io \"r1\" already exists"]],
    from_dict: "V1ConfigMap",
    service: ["http", "ClusterIP", "None", ["IPv4"], true],
    patch_strategic: ["side", "c"],
    patch_json: {"a": "1", "b": "2"},
    patch_json_fails: [422, "Unprocessable Entity", {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "the server rejected our request due to an error in our request", "reason": "Invalid", "details": {}, "code": 422}],
    patch_model: {"a": "1", "b": "2", "c": "3"},
    paging: [["page-0", "page-1", "page-2", "page-3", "page-4"], 3, null, null, true, true],
    paging_bad_continue: [400, "Bad Request"],
    delete_dry_run: ["Success", "configmaps", "page-0", "page-0"],
    delete_body: ["Success", "page-0"],
    delete_missing: [404, "Not Found", {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "configmaps \"page-0\" not found", "reason": "NotFound", "details": {"name": "page-0", "kind": "configmaps"}, "code": 404}],
    delete_bad_policy: [422, "Unprocessable Entity"],
    delete_precondition: [409, "Conflict"],
    delete_collection: ["V1Status", 0],
    watch: [[["ADDED", "w1", null], ["MODIFIED", "w1", {"k": "v"}], ["DELETED", "w1", {"k": "v"}]], true],
    watch_namespace: [["ADDED", "Active"], ["DELETED", "Terminating"], true],
    watch_bookmark: [["BOOKMARK", "ConfigMap", "v1", true]],
    gone_raw: [200, [["ERROR", 410, "Expired", true]]],
    gone: [410, true, []],
    co_create: [1, {"replicas": 1, "size": "10%", "at": "2024-01-02T03:04:05+01:00"}],
    co_patch: {"replicas": 1, "size": 3, "at": "2024-01-02T03:04:05+01:00"},
    co_patch_list: [400, "Bad Request"],
    co_status: [{"replicas": 2, "selector": "app=w", "phase": "Ok"}, 1, "Ok"],
    co_scale: ["Scale", "autoscaling/v1", {"replicas": 1}, {"replicas": 2, "selector": "app=w"}],
    co_scale_patch: {"replicas": 5},
    co_scale_replace: [{"replicas": 4}, 4],
    co_scale_replace_stale: [409, "Conflict"],
    co_status_replace: {"phase": "Replaced"},
    co_cluster: [{"phase": "X"}, {"replicas": 2}, {"replicas": 0}],
    co_watch: [["ADDED", "w2"], ["DELETED", "w2"]],
    co_delete_foreground: ["Widget", ["foregroundDeletion"], true],
    co_delete_dry_run: ["Success", "clusterwidgets", "sweep.example.com"],
    co_get_deleted: [404, "Not Found"],
    co_unknown_plural: [404, "Not Found", {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "the server could not find the requested resource", "reason": "NotFound", "details": {}, "code": 404}],
    dyn_subresources: ["scale", "status"],
    dyn_patch_strategic: [415, "Unsupported Media Type", {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml", "reason": "UnsupportedMediaType", "code": 415}],
    dyn_patch_merge: 2,
    dyn_apply: [409, "Apply failed with 1 conflict: conflict with \"OpenAPI-Generator\" using sweep.example.com/v1: .spec.replicas", 3, [["OpenAPI-Generator", "Update"], ["sweep", "Apply"]]],
    dyn_apply_conflict: [409, "Conflict", "Apply failed with 1 conflict: conflict with \"sweep\": .spec.replicas", [{"reason": "FieldManagerConflict", "message": "conflict with \"sweep\"", "field": ".spec.replicas"}]],
    dyn_apply_force: 4,
    dyn_status: "Up",
    dyn_scale: ["Scale", 4, 0],
    dyn_replace: 7,
    dyn_watch: [["ADDED", "d1"]],
    dyn_delete: "Success",
    dyn_configmap_apply: {"b": "2"},
    dyn_delete_collection: "ConfigMapList",
    time_event: ["2024-01-02T02:04:05Z", "2024-01-02T03:34:05Z", "2024-01-02T02:04:05.123456Z", "2024-01-02T04:04:05.000001Z", "2024-01-03T01:59:59Z", "2024-01-03T01:59:59+00:00", "2024-01-02T02:04:05.123456+00:00"],
    time_lease: ["2024-01-02T02:04:05.123456Z", "2024-01-02T03:04:05.000000Z", "2024-01-02T02:04:05.123456+00:00"],
    time_python: [true, "2024-05-06T05:08:09.123456+00:00", "2024-05-06T05:08:09+00:00", "2024-05-06T05:08:09.123456+00:00"],
    pod: ["Running", "capstan-node-1", {"cpu": "100m", "memory": "64Mi"}, 8080, [["c", true], ["side", true]], "datetime"],
    pod_log: ["", true],
    deployment_scale: [1, "app=web", 1],
    deserialize_failures: [],
    conflict: [409, "Conflict", {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "configmaps \"dyn\" already exists", "reason": "AlreadyExists", "details": {"name": "dyn", "kind": "configmaps"}, "code": 409}],
    invalid: "metadata.name",
  });
});
