# Driven by python-client.test.ts: the official Kubernetes Python client (Debian's python3-kubernetes) against
# Capstan. Every step's outcome goes into one JSON document on stdout, which the test compares exactly.
#   /usr/bin/python3 python-client.py <kubeconfig>
import json
import sys
import threading
import time

from kubernetes import client, config, dynamic, watch

config.load_kube_config(sys.argv[1])
out = {}
core = client.CoreV1Api()
apps = client.AppsV1Api()

out['version'] = client.VersionApi().get_code().git_version
out['namespaces'] = sorted(n.metadata.name for n in core.list_namespace().items)

cm = core.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py', labels={'app': 'py'}), data={'k': 'v'}))
out['created'] = [cm.metadata.name, cm.data, cm.metadata.resource_version.isdigit(), len(cm.metadata.uid)]
out['patched'] = core.patch_namespaced_config_map('py', 'default', {'data': {'k': 'v2'}}).data
try:
    core.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py')))
    out['duplicate'] = 'created'
except client.ApiException as e:
    status = json.loads(e.body)
    out['duplicate'] = [e.status, status['reason'], status['message']]
try:
    core.read_namespaced_config_map('absent', 'default')
except client.ApiException as e:
    out['absent'] = [e.status, json.loads(e.body)['reason']]

# A watch from the list's resourceVersion sees a create made while it runs, then ends when told.
listed = core.list_namespaced_config_map('default', label_selector='app=py')
events = []


def create_later():
    time.sleep(0.3)
    core.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py-2', labels={'app': 'py'})))


threading.Thread(target=create_later).start()
w = watch.Watch()
for ev in w.stream(core.list_namespaced_config_map, 'default', label_selector='app=py', resource_version=listed.metadata.resource_version, timeout_seconds=10):
    events.append([ev['type'], ev['object'].metadata.name])
    w.stop()
out['watch'] = events

deployment = apps.create_namespaced_deployment('default', {
    'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'py-web'},
    'spec': {'selector': {'matchLabels': {'app': 'py-web'}}, 'template': {'metadata': {'labels': {'app': 'py-web'}}, 'spec': {'containers': [{'name': 'web', 'image': 'nginx'}]}}},
})
out['deployment'] = [deployment.spec.replicas, deployment.spec.strategy.type, deployment.spec.template.spec.containers[0].image_pull_policy]
out['scaled'] = apps.patch_namespaced_deployment_scale('py-web', 'default', {'spec': {'replicas': 3}}).spec.replicas

ext = client.ApiextensionsV1Api()
ext.create_custom_resource_definition({
    'apiVersion': 'apiextensions.k8s.io/v1', 'kind': 'CustomResourceDefinition', 'metadata': {'name': 'gizmos.py.example.com'},
    'spec': {'group': 'py.example.com', 'scope': 'Namespaced', 'names': {'plural': 'gizmos', 'singular': 'gizmo', 'kind': 'Gizmo', 'listKind': 'GizmoList'},
             'versions': [{'name': 'v1', 'served': True, 'storage': True, 'schema': {'openAPIV3Schema': {'type': 'object', 'properties': {'spec': {'type': 'object', 'properties': {'size': {'type': 'integer', 'minimum': 1}}}}}}}]},
})
for _ in range(100):
    crd = ext.read_custom_resource_definition('gizmos.py.example.com')
    if any(c.type == 'Established' and c.status == 'True' for c in (crd.status.conditions or [])):
        break
    time.sleep(0.05)
custom = client.CustomObjectsApi()
custom.create_namespaced_custom_object('py.example.com', 'v1', 'default', 'gizmos', {'apiVersion': 'py.example.com/v1', 'kind': 'Gizmo', 'metadata': {'name': 'g1'}, 'spec': {'size': 2}})
try:
    custom.create_namespaced_custom_object('py.example.com', 'v1', 'default', 'gizmos', {'apiVersion': 'py.example.com/v1', 'kind': 'Gizmo', 'metadata': {'name': 'g2'}, 'spec': {'size': 0}})
    out['invalid_gizmo'] = 'created'
except client.ApiException as e:
    status = json.loads(e.body)
    out['invalid_gizmo'] = [e.status, status['reason'], status['message']]
out['gizmos'] = [[g['metadata']['name'], g['spec']['size']] for g in custom.list_namespaced_custom_object('py.example.com', 'v1', 'default', 'gizmos')['items']]

# The dynamic client discovers resources (aggregated discovery is not asked for: it reads /api and /apis).
dyn = dynamic.DynamicClient(client.ApiClient())
gizmos = dyn.resources.get(api_version='py.example.com/v1', kind='Gizmo')
out['dynamic_gizmos'] = [g.metadata.name for g in gizmos.get(namespace='default').items]
configmaps = dyn.resources.get(api_version='v1', kind='ConfigMap')
out['dynamic_configmaps'] = sorted(c.metadata.name for c in configmaps.get(namespace='default', label_selector='app=py').items)

deleted = core.delete_namespaced_config_map('py', 'default', propagation_policy='Background')
out['deleted'] = deleted.status if hasattr(deleted, 'status') else None
out['remaining'] = sorted(c.metadata.name for c in core.list_namespaced_config_map('default', label_selector='app=py').items)
print(json.dumps(out))
