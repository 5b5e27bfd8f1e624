# Driven by python-sweep.test.ts: how people use the official Kubernetes Python client (Debian's python3-kubernetes)
# beyond python-client.py: watches (namespaced, cluster-scoped, custom; bookmarks; 410 Gone and how the client
# surfaces it), the dynamic client with server-side apply and subresources, create_from_yaml, the typed patches,
# paging, delete options, CustomObjectsApi with status and scale, timestamps as kube re-encodes them, bearer tokens.
# Every step's outcome goes into one JSON document on stdout, which the test compares exactly.
#   /usr/bin/python3 python-sweep.py <kubeconfig>
import datetime
import json
import os
import shutil
import sys
import tempfile
import threading
import time

from kubernetes import client, config, dynamic, utils, watch

config.load_kube_config(sys.argv[1])
out = {}
core = client.CoreV1Api()
apps = client.AppsV1Api()
NS = 'sweep'
core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))


def api_error(f):
    """Runs f, which must fail: the ApiException's status, reason and the kube Status in its body."""
    try:
        f()
    except client.ApiException as e:
        body = json.loads(e.body) if e.body else None
        return [e.status, e.reason, body]
    return 'no error'


def later(seconds, f):
    def run():
        time.sleep(seconds)
        f()
    t = threading.Thread(target=run)
    t.start()
    return t


# ---- discovery and version
out['version'] = [client.VersionApi().get_code().git_version, client.VersionApi().get_code().minor]
groups = {g.name: g.preferred_version.group_version for g in client.ApisApi().get_api_versions().groups}
out['apis'] = [groups.get('apps'), groups.get('apiextensions.k8s.io'), groups.get('coordination.k8s.io')]

# ---- a bearer token (TokenRequest) instead of the client certificate
core.create_namespaced_service_account(NS, client.V1ServiceAccount(metadata=client.V1ObjectMeta(name='bot')))
token = core.create_namespaced_service_account_token('bot', NS, client.AuthenticationV1TokenRequest(spec=client.V1TokenRequestSpec(audiences=[]))).status.token
admin = client.Configuration.get_default_copy()


def bearer(tok):
    c = client.Configuration(host=admin.host)
    c.ssl_ca_cert = admin.ssl_ca_cert
    c.api_key = {'authorization': 'Bearer ' + tok}
    return client.ApiClient(c)


bot = bearer(token)
who = bot.call_api('/apis/authentication.k8s.io/v1/selfsubjectreviews', 'POST', body={'apiVersion': 'authentication.k8s.io/v1', 'kind': 'SelfSubjectReview'},
                   response_type='object', auth_settings=['BearerToken'], _return_http_data_only=True)
out['bearer'] = [who['status']['userInfo']['username'], [c.metadata.name for c in client.CoreV1Api(bot).list_namespaced_config_map(NS).items]]
out['bad_token'] = api_error(lambda: client.CoreV1Api(bearer('nope')).list_namespace())

# ---- create_from_yaml with several documents and a List; a second run fails on every one with 409
manifest = """
apiVersion: v1
kind: ConfigMap
metadata: {name: y1, labels: {from: yaml}}
data: {a: "1"}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: nginx
        ports: [{name: http, containerPort: 8080}]
        resources: {requests: {cpu: 100m, memory: 64Mi}}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Secret, metadata: {name: s1}, stringData: {k: v}}
- {apiVersion: rbac.authorization.k8s.io/v1, kind: Role, metadata: {name: r1}, rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]}
"""
scratch = tempfile.mkdtemp()
path = os.path.join(scratch, 'manifest.yaml')
with open(path, 'w') as f:
    f.write(manifest)
k8s = client.ApiClient()
created = utils.create_from_yaml(k8s, path, namespace=NS)
out['from_yaml'] = [[type(o).__name__ for o in objs] for objs in created]
try:
    utils.create_from_yaml(k8s, path, namespace=NS)
    out['from_yaml_again'] = 'created'
except utils.FailToCreateError as e:
    out['from_yaml_again'] = [[x.status, json.loads(x.body)['message']] for x in e.api_exceptions]
out['from_dict'] = type(utils.create_from_dict(k8s, {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'd1', 'labels': {'from': 'yaml'}}}, namespace=NS)[0]).__name__
svc = core.read_namespaced_service('web', NS)
out['service'] = [svc.spec.ports[0].target_port, svc.spec.type, svc.spec.session_affinity, svc.spec.ip_families, svc.spec.cluster_ip == svc.spec.cluster_i_ps[0]]

# ---- the typed patch: a dict is a strategic merge patch, a list a JSON patch
out['patch_strategic'] = [c.name for c in apps.patch_namespaced_deployment('web', NS, {'spec': {'template': {'spec': {'containers': [{'name': 'side', 'image': 'busybox'}]}}}}).spec.template.spec.containers]
out['patch_json'] = core.patch_namespaced_config_map('y1', NS, [{'op': 'add', 'path': '/data/b', 'value': '2'}]).data
out['patch_json_fails'] = api_error(lambda: core.patch_namespaced_config_map('y1', NS, [{'op': 'replace', 'path': '/nope/x', 'value': '2'}]))
out['patch_model'] = core.patch_namespaced_config_map('y1', NS, client.V1ConfigMap(data={'c': '3'})).data

# ---- paging
for i in range(5):
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=f'page-{i}', labels={'page': 'yes' if i % 2 else 'no'})))
names, pages, cont, first = [], 0, None, None
while True:
    page = core.list_namespaced_config_map(NS, limit=2, _continue=cont, label_selector='page')
    first = first or page
    pages += 1
    names += [c.metadata.name for c in page.items]
    cont = page.metadata._continue
    if not cont:
        break
selected = core.list_namespaced_config_map(NS, limit=1, label_selector='page=yes')
unselected = core.list_namespaced_config_map(NS, limit=1)
out['paging'] = [names, pages, first.metadata.remaining_item_count, selected.metadata.remaining_item_count, bool(selected.metadata._continue), unselected.metadata.remaining_item_count is not None]
out['paging_bad_continue'] = api_error(lambda: core.list_namespaced_config_map(NS, limit=2, _continue='garbage'))[:2]

# ---- delete with options
dry = core.delete_namespaced_config_map('page-0', NS, dry_run='All')
out['delete_dry_run'] = [dry.status, dry.details.kind, dry.details.name, core.read_namespaced_config_map('page-0', NS).metadata.name]
gone = core.delete_namespaced_config_map('page-0', NS, body=client.V1DeleteOptions(propagation_policy='Background', grace_period_seconds=0))
out['delete_body'] = [gone.status, gone.details.name]
out['delete_missing'] = api_error(lambda: core.delete_namespaced_config_map('page-0', NS))
out['delete_bad_policy'] = api_error(lambda: core.delete_namespaced_config_map('page-1', NS, propagation_policy='Bogus'))[:2]
out['delete_precondition'] = api_error(lambda: core.delete_namespaced_config_map('page-1', NS, body=client.V1DeleteOptions(preconditions=client.V1Preconditions(uid='not-it'))))[:2]
out['delete_collection'] = [type(core.delete_collection_namespaced_config_map(NS, label_selector='page')).__name__, len(core.list_namespaced_config_map(NS, label_selector='page').items)]

# ---- watch a namespaced collection from a list's resourceVersion; the watch's resource_version follows the events
listed = core.list_namespaced_config_map(NS, label_selector='w=1')


def changes():
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='w1', labels={'w': '1'})))
    core.patch_namespaced_config_map('w1', NS, {'data': {'k': 'v'}})
    core.delete_namespaced_config_map('w1', NS)


t = later(0.3, changes)
w = watch.Watch()
events = []
for ev in w.stream(core.list_namespaced_config_map, NS, label_selector='w=1', resource_version=listed.metadata.resource_version, timeout_seconds=10):
    events.append([ev['type'], ev['object'].metadata.name, ev['object'].data])
    last_rv = ev['object'].metadata.resource_version
    if ev['type'] == 'DELETED':
        w.stop()
t.join()
out['watch'] = [events, w.resource_version == last_rv]

# ---- a cluster-scoped watch: a namespace made and deleted
listed = core.list_namespace()


def namespace_lifecycle():
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name='sweep-short')))
    core.delete_namespace('sweep-short')


t = later(0.3, namespace_lifecycle)
w = watch.Watch()
events = []
for ev in w.stream(core.list_namespace, field_selector='metadata.name=sweep-short', resource_version=listed.metadata.resource_version, timeout_seconds=15):
    events.append([ev['type'], ev['object'].status.phase])
    if ev['type'] == 'DELETED':
        w.stop()
t.join()
out['watch_namespace'] = [events[0], events[-1], ['MODIFIED', 'Terminating'] in events]

# ---- a BOOKMARK before the watch's deadline carries a newer resourceVersion (a write the selector hides)
listed = core.list_namespaced_config_map(NS, label_selector='bm=1')
hidden = {}
t = later(0.3, lambda: hidden.setdefault('rv', core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='hidden'))).metadata.resource_version))
events = []
for ev in watch.Watch().stream(core.list_namespaced_config_map, NS, label_selector='bm=1', resource_version=listed.metadata.resource_version, allow_watch_bookmarks=True, timeout_seconds=3):
    obj = ev['raw_object']
    events.append([ev['type'], obj['kind'], obj['apiVersion'], int(obj['metadata']['resourceVersion']) >= int(hidden['rv'])])
t.join()
out['watch_bookmark'] = events

# ---- 410 Gone: a resourceVersion older than the server's history window (2 s in this test)
stale = core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='stale'))).metadata.resource_version
core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='after-stale')))
time.sleep(2.6)
core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='fresh')))
time.sleep(0.2)
raw = core.list_namespaced_config_map(NS, watch=True, resource_version=stale, timeout_seconds=5, _preload_content=False)
lines = [json.loads(line) for line in raw.data.decode().splitlines()]
out['gone_raw'] = [raw.status, [[e['type'], e['object']['code'], e['object']['reason'], e['object']['message'].startswith(f'too old resource version: {stale} (')] for e in lines]]
gone_seen = []
try:
    # Without timeout_seconds the client retries once from the same resourceVersion, then raises.
    for ev in watch.Watch().stream(core.list_namespaced_config_map, NS, resource_version=stale):
        gone_seen.append(ev['type'])
    out['gone'] = 'no error'
except client.ApiException as e:
    out['gone'] = [e.status, e.reason.startswith(f'Expired: too old resource version: {stale} ('), gone_seen]

# ---- a custom resource with status and scale subresources: CustomObjectsApi
ext = client.ApiextensionsV1Api()
for plural, kind, scope in [('widgets', 'Widget', 'Namespaced'), ('clusterwidgets', 'ClusterWidget', 'Cluster')]:
    ext.create_custom_resource_definition({
        'apiVersion': 'apiextensions.k8s.io/v1', 'kind': 'CustomResourceDefinition', 'metadata': {'name': f'{plural}.sweep.example.com'},
        'spec': {'group': 'sweep.example.com', 'scope': scope, 'names': {'plural': plural, 'singular': kind.lower(), 'kind': kind, 'listKind': kind + 'List'},
                 'versions': [{'name': 'v1', 'served': True, 'storage': True,
                               'subresources': {'status': {}, 'scale': {'specReplicasPath': '.spec.replicas', 'statusReplicasPath': '.status.replicas', 'labelSelectorPath': '.status.selector'}},
                               'schema': {'openAPIV3Schema': {'type': 'object', 'properties': {
                                   'spec': {'type': 'object', 'properties': {'replicas': {'type': 'integer'}, 'size': {'x-kubernetes-int-or-string': True}, 'at': {'type': 'string', 'format': 'date-time'}}},
                                   'status': {'type': 'object', 'properties': {'replicas': {'type': 'integer'}, 'selector': {'type': 'string'}, 'phase': {'type': 'string'}}}}}}}]},
    })
for name in ['widgets.sweep.example.com', 'clusterwidgets.sweep.example.com']:
    for _ in range(200):
        crd = ext.read_custom_resource_definition(name)
        if any(c.type == 'Established' and c.status == 'True' for c in (crd.status.conditions or [])):
            break
        time.sleep(0.05)
G, V = 'sweep.example.com', 'v1'
co = client.CustomObjectsApi()
for _ in range(200):
    try:
        co.list_namespaced_custom_object(G, V, NS, 'widgets')
        co.list_cluster_custom_object(G, V, 'clusterwidgets')
        break
    except client.ApiException:
        time.sleep(0.05)
w1 = co.create_namespaced_custom_object(G, V, NS, 'widgets', {'apiVersion': 'sweep.example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'w1'}, 'spec': {'replicas': 1, 'size': '10%', 'at': '2024-01-02T03:04:05+01:00'}})
out['co_create'] = [w1['metadata']['generation'], w1['spec']]
out['co_patch'] = co.patch_namespaced_custom_object(G, V, NS, 'widgets', 'w1', {'spec': {'size': 3}})['spec']
out['co_patch_list'] = api_error(lambda: co.patch_namespaced_custom_object(G, V, NS, 'widgets', 'w1', [{'op': 'replace', 'path': '/spec/replicas', 'value': 2}]))[:2]
patched = co.patch_namespaced_custom_object_status(G, V, NS, 'widgets', 'w1', {'status': {'replicas': 2, 'selector': 'app=w', 'phase': 'Ok'}, 'spec': {'replicas': 9}})
out['co_status'] = [patched['status'], patched['spec']['replicas'], co.get_namespaced_custom_object_status(G, V, NS, 'widgets', 'w1')['status']['phase']]
scale = co.get_namespaced_custom_object_scale(G, V, NS, 'widgets', 'w1')
out['co_scale'] = [scale['kind'], scale['apiVersion'], scale['spec'], scale['status']]
out['co_scale_patch'] = co.patch_namespaced_custom_object_scale(G, V, NS, 'widgets', 'w1', {'spec': {'replicas': 5}})['spec']
# A Scale written without a resourceVersion is applied to the current object (kube's scaleUpdatedObjectInfo).
blind = co.replace_namespaced_custom_object_scale(G, V, NS, 'widgets', 'w1', {'apiVersion': 'autoscaling/v1', 'kind': 'Scale', 'metadata': {'name': 'w1', 'namespace': NS}, 'spec': {'replicas': 4}})
out['co_scale_replace'] = [blind['spec'], co.get_namespaced_custom_object(G, V, NS, 'widgets', 'w1')['spec']['replicas']]
out['co_scale_replace_stale'] = api_error(lambda: co.replace_namespaced_custom_object_scale(G, V, NS, 'widgets', 'w1', {'apiVersion': 'autoscaling/v1', 'kind': 'Scale', 'metadata': {'name': 'w1', 'namespace': NS, 'resourceVersion': w1['metadata']['resourceVersion']}, 'spec': {'replicas': 6}}))[:2]
current = co.get_namespaced_custom_object(G, V, NS, 'widgets', 'w1')
out['co_status_replace'] = co.replace_namespaced_custom_object_status(G, V, NS, 'widgets', 'w1', dict(current, status={'phase': 'Replaced'}))['status']
co.create_cluster_custom_object(G, V, 'clusterwidgets', {'apiVersion': 'sweep.example.com/v1', 'kind': 'ClusterWidget', 'metadata': {'name': 'cw1'}, 'spec': {'replicas': 1}})
cw_scale = co.replace_cluster_custom_object_scale(G, V, 'clusterwidgets', 'cw1', {'apiVersion': 'autoscaling/v1', 'kind': 'Scale', 'metadata': {'name': 'cw1'}, 'spec': {'replicas': 2}})
out['co_cluster'] = [co.patch_cluster_custom_object_status(G, V, 'clusterwidgets', 'cw1', {'status': {'phase': 'X'}})['status'], cw_scale['spec'], cw_scale['status']]
listed = co.list_namespaced_custom_object(G, V, NS, 'widgets')


def widget_lifecycle():
    co.create_namespaced_custom_object(G, V, NS, 'widgets', {'apiVersion': 'sweep.example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'w2'}, 'spec': {'replicas': 1}})
    co.delete_namespaced_custom_object(G, V, NS, 'widgets', 'w2')


t = later(0.3, widget_lifecycle)
w = watch.Watch()
events = []
for ev in w.stream(co.list_namespaced_custom_object, G, V, NS, 'widgets', resource_version=listed['metadata']['resourceVersion'], timeout_seconds=10):
    events.append([ev['type'], ev['object']['metadata']['name']])
    if ev['type'] == 'DELETED':
        w.stop()
t.join()
out['co_watch'] = events
fg = co.delete_namespaced_custom_object(G, V, NS, 'widgets', 'w1', body=client.V1DeleteOptions(propagation_policy='Foreground'))
out['co_delete_foreground'] = [fg['kind'], fg['metadata'].get('finalizers'), 'deletionTimestamp' in fg['metadata']]
dry = co.delete_cluster_custom_object(G, V, 'clusterwidgets', 'cw1', dry_run='All')
out['co_delete_dry_run'] = [dry['status'], dry['details']['kind'], dry['details']['group']]
co.delete_cluster_custom_object(G, V, 'clusterwidgets', 'cw1')
out['co_get_deleted'] = api_error(lambda: co.get_cluster_custom_object(G, V, 'clusterwidgets', 'cw1'))[:2]
out['co_unknown_plural'] = api_error(lambda: co.list_namespaced_custom_object(G, V, NS, 'nothings'))

# ---- the dynamic client
# The discovery cache goes to the scratch directory, not the shared temp directory.
dyn = dynamic.DynamicClient(client.ApiClient(), cache_file=os.path.join(scratch, 'discovery.json'))
Widget = dyn.resources.get(api_version='sweep.example.com/v1', kind='Widget')
out['dyn_subresources'] = sorted(Widget.subresources.keys())
Widget.create(body={'apiVersion': 'sweep.example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'd1'}, 'spec': {'replicas': 1}}, namespace=NS)
# (On a client of its own: the 415 leaves the request body unread, and the server may then close the connection.)
once = dynamic.DynamicClient(client.ApiClient(), cache_file=os.path.join(scratch, 'discovery-once.json')).resources.get(api_version='sweep.example.com/v1', kind='Widget')
out['dyn_patch_strategic'] = api_error(lambda: once.patch(body={'metadata': {'name': 'd1'}, 'spec': {'replicas': 2}}, namespace=NS))
out['dyn_patch_merge'] = Widget.patch(body={'metadata': {'name': 'd1'}, 'spec': {'replicas': 2}}, namespace=NS, content_type='application/merge-patch+json').spec.replicas


def applied(replicas):
    # Python 22.6 sends only string bodies with application/apply-patch+yaml: JSON is YAML.
    return json.dumps({'apiVersion': 'sweep.example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'd1'}, 'spec': {'replicas': replicas}})


# The create's manager (OpenAPI-Generator, the client's user agent) owns spec.replicas: applying it is a conflict.
owned = api_error(lambda: Widget.server_side_apply(body=applied(3), name='d1', namespace=NS, field_manager='sweep'))
ssa = Widget.server_side_apply(body=applied(3), name='d1', namespace=NS, field_manager='sweep', force_conflicts=True)
out['dyn_apply'] = [owned[0], owned[2]['message'], ssa.spec.replicas, sorted([m.manager, m.operation] for m in ssa.metadata.managedFields)]
conflict = api_error(lambda: Widget.server_side_apply(body=applied(4), name='d1', namespace=NS, field_manager='other'))
out['dyn_apply_conflict'] = [conflict[0], conflict[2]['reason'], conflict[2]['message'], conflict[2]['details']['causes']]
out['dyn_apply_force'] = Widget.server_side_apply(body=applied(4), name='d1', namespace=NS, field_manager='other', force_conflicts=True).spec.replicas
out['dyn_status'] = Widget.status.patch(body={'metadata': {'name': 'd1'}, 'status': {'phase': 'Up'}}, namespace=NS, content_type='application/merge-patch+json').status.phase
dscale = Widget.scale.get(name='d1', namespace=NS)
out['dyn_scale'] = [dscale.kind, dscale.spec.replicas, dscale.status.replicas]
current = Widget.get(name='d1', namespace=NS).to_dict()
current['spec']['replicas'] = 7
out['dyn_replace'] = Widget.replace(body=current, namespace=NS).spec.replicas
out['dyn_watch'] = [[e['type'], e['object'].metadata.name] for e in Widget.watch(namespace=NS, timeout=1)]
out['dyn_delete'] = Widget.delete(name='d1', namespace=NS).status
ConfigMap = dyn.resources.get(api_version='v1', kind='ConfigMap')
out['dyn_configmap_apply'] = ConfigMap.server_side_apply(body=json.dumps({'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'dyn'}, 'data': {'b': '2'}}), name='dyn', namespace=NS, field_manager='sweep').to_dict()['data']
out['dyn_delete_collection'] = ConfigMap.delete(namespace=NS, label_selector='from=yaml').kind

# ---- timestamps: built-in kinds store and return Time in UTC to the second and MicroTime in UTC to the microsecond
coord = client.CoordinationV1Api()
k8s_raw = core.api_client


def raw_call(path, method, body, content_type=None):
    headers = {'Content-Type': content_type} if content_type else {}
    return k8s_raw.call_api(path, method, header_params=headers, body=body, response_type='object', auth_settings=['BearerToken'], _return_http_data_only=True)


made = raw_call(f'/api/v1/namespaces/{NS}/events', 'POST', {
    'metadata': {'name': 'tz'}, 'involvedObject': {'kind': 'Pod', 'name': 'x', 'namespace': NS}, 'reason': 'R',
    'firstTimestamp': '2024-01-02T03:04:05+01:00', 'lastTimestamp': '2024-01-02T03:04:05.999-00:30', 'count': 2,
    'eventTime': '2024-01-02T03:04:05.123456+01:00', 'series': {'count': 2, 'lastObservedTime': '2024-01-02T03:04:05.000001-01:00'},
    'reportingComponent': 'sweep', 'reportingInstance': 'i', 'action': 'A'})
patched = raw_call(f'/api/v1/namespaces/{NS}/events/tz', 'PATCH', {'lastTimestamp': '2024-01-02T23:59:59.5-02:00'}, 'application/merge-patch+json')
read = core.read_namespaced_event('tz', NS)
out['time_event'] = [made['firstTimestamp'], made['lastTimestamp'], made['eventTime'], made['series']['lastObservedTime'], patched['lastTimestamp'], read.last_timestamp.isoformat(), read.event_time.isoformat()]
lease = raw_call(f'/apis/coordination.k8s.io/v1/namespaces/{NS}/leases', 'POST', {'metadata': {'name': 'tz'}, 'spec': {'renewTime': '2024-01-02T03:04:05.123456+01:00', 'acquireTime': '2024-01-02T03:04:05.000000Z'}})
out['time_lease'] = [lease['spec']['renewTime'], lease['spec']['acquireTime'], coord.read_namespaced_lease('tz', NS).spec.renew_time.isoformat()]
now = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
typed = coord.create_namespaced_lease(NS, client.V1Lease(metadata=client.V1ObjectMeta(name='py'), spec=client.V1LeaseSpec(holder_identity='me', renew_time=now, lease_duration_seconds=15)))
event = core.create_namespaced_event(NS, client.CoreV1Event(metadata=client.V1ObjectMeta(name='ev'), involved_object=client.V1ObjectReference(kind='Pod', name='x', namespace=NS),
                                                            reason='R', message='m', first_timestamp=now, last_timestamp=now, event_time=now, reporting_component='sweep', reporting_instance='i', action='A', type='Normal'))
out['time_python'] = [typed.spec.renew_time == now, typed.spec.renew_time.isoformat(), event.first_timestamp.isoformat(), event.event_time.isoformat()]

# ---- objects the simulated cluster makes, and logs
for _ in range(300):
    d = apps.read_namespaced_deployment_status('web', NS)
    if d.status.available_replicas == 1 and d.status.updated_replicas == 1 and (d.status.replicas or 0) == 1:
        break
    time.sleep(0.05)
pods = [p for p in core.list_namespaced_pod(NS, label_selector='app=web').items if p.status.phase == 'Running']
pod = pods[0]
c = [c for c in pod.spec.containers if c.name == 'c'][0]
out['pod'] = [pod.status.phase, pod.spec.node_name, c.resources.requests, c.ports[0].container_port, sorted([s.name, s.ready] for s in pod.status.container_statuses),
              type(pod.status.start_time).__name__]
out['pod_log'] = [core.read_namespaced_pod_log(pod.metadata.name, NS, container='c'), api_error(lambda: core.read_namespaced_pod_log(pod.metadata.name, NS, container='zz'))[2]['message'].startswith('container zz is not valid for pod ')]
scale = apps.read_namespaced_deployment_scale('web', NS)
out['deployment_scale'] = [scale.spec.replicas, scale.status.selector, apps.replace_namespaced_deployment_scale('web', NS, client.V1Scale(metadata=client.V1ObjectMeta(name='web'), spec=client.V1ScaleSpec(replicas=1))).spec.replicas]

# Every kind listed here must deserialize into the client's models.
lists = [
    (core, 'list_namespaced_pod'), (core, 'list_namespaced_service'), (core, 'list_namespaced_endpoints'), (core, 'list_namespaced_event'),
    (core, 'list_namespaced_service_account'), (core, 'list_namespaced_secret'), (core, 'list_namespaced_config_map'),
    (apps, 'list_namespaced_deployment'), (apps, 'list_namespaced_replica_set'), (client.DiscoveryV1Api(), 'list_namespaced_endpoint_slice'),
    (client.CoordinationV1Api(), 'list_namespaced_lease'), (client.RbacAuthorizationV1Api(), 'list_namespaced_role'),
    (core, 'list_node'), (core, 'list_namespace'), (core, 'list_component_status'), (client.CoordinationV1Api(), 'list_lease_for_all_namespaces'),
    (client.ApiregistrationV1Api(), 'list_api_service'), (client.SchedulingV1Api(), 'list_priority_class'), (client.StorageV1Api(), 'list_storage_class'),
    (client.ApiextensionsV1Api(), 'list_custom_resource_definition'), (core, 'list_event_for_all_namespaces'),
]
failed = []
for api, fn in lists:
    try:
        getattr(api, fn)(NS) if 'namespaced' in fn else getattr(api, fn)()
    except Exception as e:
        failed.append([fn, str(e)])
out['deserialize_failures'] = failed

# ---- an ApiException carries the kube Status
out['conflict'] = api_error(lambda: core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='dyn'))))
out['invalid'] = api_error(lambda: core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='Bad_Name'))))[2]['details']['causes'][0]['field']
shutil.rmtree(scratch)
print(json.dumps(out))
