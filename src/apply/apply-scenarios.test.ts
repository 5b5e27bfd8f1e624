// Table-driven scenarios of server-side apply and managedFields: each case is a sequence of applies and
// non-apply writes by named managers, then the expected object, managedFields (compared as exact JSON, so
// the FieldsV1 key order is checked too) or error.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, ResourceDefinition } from '../registry/types.ts';
import { StatusError } from '../apis/errors.ts';
import { applyServerSide, updateManagedFields } from './index.ts';
import { at, builtinDef, entry, gadgetDef, widgetDef } from './test-fixtures.ts';

type Body = Record<string, unknown>;

interface ApplyOp {
  apply: string;
  body: Body;
  force?: boolean;
  subresource?: string;
  at: number;
}

interface UpdateOp {
  update: string;
  /** The whole new object, or a change of the current one (which it receives as a copy). */
  body: Body | ((current: Body) => Body);
  subresource?: string;
  at: number;
}

interface Case {
  name: string;
  def: ResourceDefinition;
  apiVersion: string;
  ops: (ApplyOp | UpdateOp)[];
  /** The object after the last successful write, without metadata.uid and managedFields. */
  object?: Body;
  /** metadata.managedFields after the last successful write; null: absent. */
  managedFields?: unknown[] | null;
  /** The error of the last operation (the earlier ones must succeed). */
  error?: { code: number; reason: string; message: string; details?: unknown };
}

const configmaps = builtinDef('', 'v1', 'configmaps');
const deployments = builtinDef('apps', 'v1', 'deployments');
const services = builtinDef('', 'v1', 'services');
const pods = builtinDef('', 'v1', 'pods');
const widgets = widgetDef();
const gadgets = gadgetDef();

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function cm(data: Record<string, string>, meta: Body = {}): Body {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', ...meta }, data };
}

function dep(spec: Body, extra: Body = {}): Body {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns' }, spec, ...extra };
}

function template(containers: Body[]): Body {
  return { metadata: { labels: { app: 'web' } }, spec: { containers } };
}

const fullDeployment = (replicas: number, image: string) =>
  dep({ replicas, selector: { matchLabels: { app: 'web' } }, template: template([{ name: 'nginx', image }]) });

function svc(spec: Body): Body {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'ns' }, spec };
}

function pod(spec: Body, extra: Body = {}): Body {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...extra }, spec };
}

function widget(spec: Body, extra: Body = {}): Body {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' }, spec, ...extra };
}

/** Set a value at a dotted path of a copy. */
function edit(path: string, value: unknown): (cur: Body) => Body {
  return (cur) => {
    const parts = path.split('.');
    let o = cur as Record<string, unknown>;
    for (const p of parts.slice(0, -1)) {
      const key = /^\d+$/.test(p) ? Number(p) : p;
      o = (o as Record<string | number, unknown>)[key] as Record<string, unknown>;
    }
    const last = parts[parts.length - 1]!;
    if (value === undefined) delete o[last];
    else o[last] = value;
    return cur;
  };
}

const CSA_ANNOTATION = '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"cm","namespace":"ns"}}\n';
const csaCreate: UpdateOp = { update: 'kubectl-client-side-apply', body: cm({ a: '1' }, { annotations: { [LAST_APPLIED]: CSA_ANNOTATION } }), at: 1 };

const cases: Case[] = [
  // ---- ConfigMap: ownership basics ----
  {
    name: 'apply creates the object; the applier owns its leaves and map entries (no "." for struct fields)',
    def: configmaps,
    apiVersion: 'v1',
    ops: [{ apply: 'm1', body: cm({ a: '1' }, { labels: { app: 'x' } }), at: 1 }],
    object: cm({ a: '1' }, { labels: { app: 'x' } }),
    managedFields: [entry('m1', 'Apply', 'v1', at(1), { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } })],
  },
  {
    name: 'a create records the new containers themselves with "."',
    def: configmaps,
    apiVersion: 'v1',
    ops: [{ update: 'kubectl-create', body: cm({ a: '1' }, { labels: { app: 'x' } }), at: 1 }],
    object: cm({ a: '1' }, { labels: { app: 'x' } }),
    managedFields: [entry('kubectl-create', 'Update', 'v1', at(1), { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } })],
  },
  {
    name: 'apply changing a field an updater owns conflicts (409 with kube message and cause)',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { update: 'kubectl-create', body: cm({ a: '1' }), at: 1 },
      { apply: 'm1', body: cm({ a: '2' }), at: 2 },
    ],
    object: cm({ a: '1' }),
    error: {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-create" using v1', field: '.data.a' }] },
    },
  },
  {
    name: 'applying an equal value shares ownership; a no-op apply records no time',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { update: 'kubectl-create', body: cm({ a: '1' }), at: 1 },
      { apply: 'm1', body: cm({ a: '1' }), at: 2 },
    ],
    object: cm({ a: '1' }),
    managedFields: [
      entry('m1', 'Apply', 'v1', undefined, { 'f:data': { 'f:a': {} } }),
      entry('kubectl-create', 'Update', 'v1', at(1), { 'f:data': { '.': {}, 'f:a': {} } }),
    ],
  },
  {
    name: 'two appliers: the second conflicts without force ("m1" printed without apiVersion)',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }), at: 1 },
      { apply: 'm2', body: cm({ a: '2' }), at: 2 },
    ],
    error: {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "m1": .data.a',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "m1"', field: '.data.a' }] },
    },
  },
  {
    name: 'force takes the field from the other applier, which keeps the rest',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1', b: '1' }), at: 1 },
      { apply: 'm2', body: cm({ a: '2' }), force: true, at: 2 },
    ],
    object: cm({ a: '2', b: '1' }),
    managedFields: [
      entry('m1', 'Apply', 'v1', at(1), { 'f:data': { 'f:b': {} } }),
      entry('m2', 'Apply', 'v1', at(2), { 'f:data': { 'f:a': {} } }),
    ],
  },
  {
    name: 'force leaves the loser with nothing: its entry disappears',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }), at: 1 },
      { apply: 'm2', body: cm({ a: '2' }), force: true, at: 2 },
    ],
    object: cm({ a: '2' }),
    managedFields: [entry('m2', 'Apply', 'v1', at(2), { 'f:data': { 'f:a': {} } })],
  },
  {
    name: 'a field the applier stops applying is removed when nobody else owns it',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1', b: '2' }), at: 1 },
      { apply: 'm1', body: cm({ a: '1' }), at: 2 },
    ],
    object: cm({ a: '1' }),
    managedFields: [entry('m1', 'Apply', 'v1', at(2), { 'f:data': { 'f:a': {} } })],
  },
  {
    name: 'a dropped field another applier co-owns stays; the unchanged object keeps the old time',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1', b: '2' }), at: 1 },
      { apply: 'm2', body: cm({ b: '2' }), at: 2 },
      { apply: 'm1', body: cm({ a: '1' }), at: 3 },
    ],
    object: cm({ a: '1', b: '2' }),
    managedFields: [
      entry('m2', 'Apply', 'v1', undefined, { 'f:data': { 'f:b': {} } }),
      entry('m1', 'Apply', 'v1', at(1), { 'f:data': { 'f:a': {} } }),
    ],
  },
  {
    name: 'an update takes a field from the applier; the applier dropping it later does not remove it',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1', b: '2' }), at: 1 },
      { update: 'editor', body: edit('data.b', '3'), at: 2 },
      { apply: 'm1', body: cm({ a: '1' }), at: 3 },
    ],
    object: cm({ a: '1', b: '3' }),
    managedFields: [
      entry('m1', 'Apply', 'v1', at(1), { 'f:data': { 'f:a': {} } }),
      entry('editor', 'Update', 'v1', at(2), { 'f:data': { 'f:b': {} } }),
    ],
  },
  {
    name: 'an update removing a field removes it from its owner and records nothing for the remover',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1', b: '2' }), at: 1 },
      { update: 'editor', body: edit('data.b', undefined), at: 2 },
    ],
    object: cm({ a: '1' }),
    managedFields: [entry('m1', 'Apply', 'v1', at(1), { 'f:data': { 'f:a': {} } })],
  },
  {
    name: 'map entries (labels) no longer applied are removed',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }, { labels: { x: '1', y: '2' } }), at: 1 },
      { apply: 'm1', body: cm({ a: '1' }, { labels: { x: '1' } }), at: 2 },
    ],
    object: cm({ a: '1' }, { labels: { x: '1' } }),
    managedFields: [entry('m1', 'Apply', 'v1', at(2), { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } })],
  },
  {
    name: 're-applying the same configuration changes nothing (time kept)',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }), at: 1 },
      { apply: 'm1', body: cm({ a: '1' }), at: 5 },
    ],
    object: cm({ a: '1' }),
    managedFields: [entry('m1', 'Apply', 'v1', at(1), { 'f:data': { 'f:a': {} } })],
  },
  {
    name: 'one manager through Update and through Apply has two entries; an empty manager name is "unknown"',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { update: '', body: cm({ a: '1' }), at: 1 },
      { apply: 'tool', body: cm({ b: '2' }), at: 2 },
      { update: 'tool', body: edit('data.c', '3'), at: 3 },
    ],
    object: cm({ a: '1', b: '2', c: '3' }),
    managedFields: [
      entry('tool', 'Apply', 'v1', at(2), { 'f:data': { 'f:b': {} } }),
      entry('unknown', 'Update', 'v1', at(1), { 'f:data': { '.': {}, 'f:a': {} } }),
      entry('tool', 'Update', 'v1', at(3), { 'f:data': { 'f:c': {} } }),
    ],
  },
  // ---- errors ----
  {
    name: 'metadata.managedFields in an apply body is a 400',
    def: configmaps,
    apiVersion: 'v1',
    ops: [{ apply: 'm1', body: cm({ a: '1' }, { managedFields: [{ manager: 'x' }] }), at: 1 }],
    error: { code: 400, reason: 'BadRequest', message: 'metadata.managedFields must be nil' },
  },
  {
    name: 'an apply body of another kind is a 400',
    def: configmaps,
    apiVersion: 'v1',
    ops: [{ apply: 'm1', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cm' } }, at: 1 }],
    error: { code: 400, reason: 'BadRequest', message: 'invalid object type: /v1, Kind=Secret' },
  },
  {
    name: 'an apply body without apiVersion/kind is a 400',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [{ apply: 'm1', body: { metadata: { name: 'web' } }, at: 1 }],
    error: { code: 400, reason: 'BadRequest', message: 'invalid object type: /, Kind=' },
  },
  {
    name: 'a field the schema does not declare fails like kube: 500 "failed to create typed patch object"',
    def: configmaps,
    apiVersion: 'v1',
    ops: [{ apply: 'm1', body: { ...cm({ a: '1' }), spec: { x: 1 } }, at: 1 }],
    error: { code: 500, reason: '', message: 'failed to create typed patch object (ns/cm; /v1, Kind=ConfigMap): .spec: field not declared in schema' },
  },
  {
    name: 'a value of the wrong type fails with the typed conversion message',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [{ apply: 'm1', body: dep({ replicas: 'three' }), at: 1 }],
    error: { code: 500, reason: '', message: 'failed to create typed patch object (ns/web; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string' },
  },
  {
    name: 'a list item without its key fails with the element error',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [{ apply: 'm1', body: dep({ template: { spec: { containers: [{ image: 'x' }] } } }), at: 1 }],
    error: {
      code: 500,
      reason: '',
      message: 'failed to create typed patch object (ns/web; apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    },
  },
  {
    name: 'duplicate keys in an applied list are rejected',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [{ apply: 'm1', body: dep({ template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } }), at: 1 }],
    error: {
      code: 500,
      reason: '',
      message: 'failed to create typed patch object (ns/web; apps/v1, Kind=Deployment): .spec.template.spec.containers: duplicate entries for key [name="a"]',
    },
  },
  // ---- managedFields in write bodies ----
  {
    name: 'an update body with managedFields [{}] clears them',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }), at: 1 },
      { update: 'resetter', body: edit('metadata.managedFields', [{}]), at: 2 },
    ],
    object: cm({ a: '1' }),
    managedFields: null,
  },
  {
    name: 'an update body with managedFields [] clears them too',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }), at: 1 },
      { update: 'resetter', body: edit('metadata.managedFields', []), at: 2 },
    ],
    managedFields: null,
  },
  {
    name: 'an object without managedFields stays untracked by updates',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }), at: 1 },
      { update: 'resetter', body: edit('metadata.managedFields', [{}]), at: 2 },
      { update: 'editor', body: edit('data.a', '2'), at: 3 },
    ],
    object: cm({ a: '2' }),
    managedFields: null,
  },
  {
    name: 'the first apply to an untracked object records "before-first-apply" for the existing fields',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }), at: 1 },
      { update: 'resetter', body: edit('metadata.managedFields', [{}]), at: 2 },
      { apply: 'm2', body: cm({ b: '2' }), at: 3 },
    ],
    object: cm({ a: '1', b: '2' }),
    managedFields: [
      entry('m2', 'Apply', 'v1', at(3), { 'f:data': { 'f:b': {} } }),
      entry('before-first-apply', 'Update', 'v1', at(3), { 'f:data': { '.': {}, 'f:a': {} } }),
    ],
  },
  {
    name: 'changing a pre-existing field of an untracked object conflicts with "before-first-apply"',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }), at: 1 },
      { update: 'resetter', body: edit('metadata.managedFields', [{}]), at: 2 },
      { apply: 'm2', body: cm({ a: '2' }), at: 3 },
    ],
    error: {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "before-first-apply" using v1', field: '.data.a' }] },
    },
  },
  {
    name: 'a body carrying valid managedFields replaces them (normalized)',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1', b: '2' }), at: 1 },
      {
        update: 'kubectl',
        body: edit('metadata.managedFields', [
          { manager: 'new-owner', operation: 'Apply', apiVersion: 'v1', time: '2024-05-01T09:00:00.123+01:00', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:b': {}, 'f:a': {} }, 'x:unknown': {} } },
        ]),
        at: 2,
      },
    ],
    object: cm({ a: '1', b: '2' }),
    managedFields: [entry('new-owner', 'Apply', 'v1', '2024-05-01T08:00:00Z', { 'f:data': { 'f:a': {}, 'f:b': {} } })],
  },
  {
    name: 'invalid managedFields in a body are ignored: the live ones are kept and the change tracked',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1', b: '2' }), at: 1 },
      {
        update: 'editor',
        body: (cur) => edit('metadata.managedFields', [{ manager: 'x', operation: 'Bogus', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }])(edit('data.a', '9')(cur)),
        at: 2,
      },
    ],
    object: cm({ a: '9', b: '2' }),
    managedFields: [
      entry('m1', 'Apply', 'v1', at(1), { 'f:data': { 'f:b': {} } }),
      entry('editor', 'Update', 'v1', at(2), { 'f:data': { 'f:a': {} } }),
    ],
  },
  {
    name: 'beyond 10 update managers the oldest are merged into "ancient-changes"',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { update: 'c0', body: cm({ k0: '0' }), at: 0 },
      ...Array.from({ length: 10 }, (_, i): UpdateOp => ({ update: `u${i + 1}`, body: edit(`data.k${i + 1}`, String(i + 1)), at: i + 1 })),
    ],
    managedFields: [
      entry('ancient-changes', 'Update', 'v1', at(1), { 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } }),
      ...Array.from({ length: 9 }, (_, i) => entry(`u${i + 2}`, 'Update', 'v1', at(i + 2), { 'f:data': { [`f:k${i + 2}`]: {} } })),
    ],
  },
  // ---- client-side apply -> server-side apply ----
  {
    name: 'kubectl --server-side after client-side apply: conflicts the annotation explains are forced',
    def: configmaps,
    apiVersion: 'v1',
    ops: [csaCreate, { apply: 'kubectl', body: cm({ a: '2' }), at: 2 }],
    object: cm({ a: '2' }, { annotations: { [LAST_APPLIED]: '{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"}}\n' } }),
    managedFields: [
      entry('kubectl', 'Apply', 'v1', at(2), { 'f:data': { 'f:a': {} } }),
      entry('kubectl-client-side-apply', 'Update', 'v1', at(1), { 'f:data': {}, 'f:metadata': { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED}`]: {} } } }),
    ],
  },
  {
    name: 'the annotation does not excuse fields changed since the last client-side apply',
    def: configmaps,
    apiVersion: 'v1',
    ops: [csaCreate, { update: 'kubectl-edit', body: edit('data.a', '5'), at: 2 }, { apply: 'kubectl', body: cm({ a: '2' }), at: 3 }],
    error: {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.a',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.a' }] },
    },
  },
  {
    name: 'only the manager "kubectl" is excused by the annotation',
    def: configmaps,
    apiVersion: 'v1',
    ops: [csaCreate, { apply: 'helm', body: cm({ a: '2' }), at: 2 }],
    error: {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.a' }] },
    },
  },
  {
    name: "kubectl's managedFields upgrade patch, then --server-side: the upgraded fields prune",
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { ...csaCreate, body: cm({ a: '1', b: '2' }, { annotations: { [LAST_APPLIED]: CSA_ANNOTATION } }) },
      {
        update: 'kubectl',
        body: edit('metadata.managedFields', [
          entry('kubectl', 'Apply', 'v1', at(1), { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED}`]: {} } } }),
        ]),
        at: 2,
      },
      { apply: 'kubectl', body: cm({ a: '1' }), at: 3 },
    ],
    object: cm({ a: '1' }),
    managedFields: [entry('kubectl', 'Apply', 'v1', at(3), { 'f:data': { 'f:a': {} } })],
  },
  // ---- Deployment: containers, ports, env ----
  {
    name: 'Deployment apply: containers keyed by name, ports by containerPort+protocol (protocol defaulted in the key)',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      {
        apply: 'm1',
        body: dep({
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: template([{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }]),
        }),
        at: 1,
      },
    ],
    managedFields: [
      entry('m1', 'Apply', 'apps/v1', at(1), {
        'f:spec': {
          'f:replicas': {},
          'f:selector': {},
          'f:template': {
            'f:metadata': { 'f:labels': { 'f:app': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"nginx"}': {
                  '.': {},
                  'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                  'f:image': {},
                  'f:name': {},
                  'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
                },
              },
            },
          },
        },
      }),
    ],
  },
  {
    name: 'Deployment create (Update): "." only where Go would have no zero value (not on spec/template)',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [{ update: 'kubectl-create', body: dep({ replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template([{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }]) }), at: 1 }],
    managedFields: [
      entry('kubectl-create', 'Update', 'apps/v1', at(1), {
        'f:spec': {
          'f:replicas': {},
          'f:selector': {},
          'f:template': {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"nginx"}': {
                  '.': {},
                  'f:image': {},
                  'f:name': {},
                  'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
                  'f:resources': {},
                },
              },
            },
          },
        },
      }),
    ],
  },
  {
    name: 'two appliers own different containers of one list; items merge in order',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { apply: 'm1', body: fullDeployment(2, 'nginx:1'), at: 1 },
      { apply: 'm2', body: dep({ template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } }), at: 2 },
    ],
    object: dep({ replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template([{ name: 'nginx', image: 'nginx:1' }, { name: 'sidecar', image: 'busybox' }]) }),
    managedFields: [
      entry('m1', 'Apply', 'apps/v1', at(1), {
        'f:spec': { 'f:replicas': {}, 'f:selector': {}, 'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
      }),
      entry('m2', 'Apply', 'apps/v1', at(2), { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } }),
    ],
  },
  {
    name: 'a list item the applier drops is pruned; the other applier\'s item stays',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { apply: 'm1', body: fullDeployment(2, 'nginx:1'), at: 1 },
      { apply: 'm2', body: dep({ template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } }), at: 2 },
      { apply: 'm1', body: dep({ replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } } } }), at: 3 },
    ],
    object: dep({ replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template([{ name: 'sidecar', image: 'busybox' }]) }),
    managedFields: [
      entry('m2', 'Apply', 'apps/v1', at(2), { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } }),
      entry('m1', 'Apply', 'apps/v1', at(3), { 'f:spec': { 'f:replicas': {}, 'f:selector': {}, 'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } } } } }),
    ],
  },
  {
    name: 'an env value edited by kubectl edit conflicts on re-apply, with the full path in the message',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { apply: 'm1', body: dep({ template: template([{ name: 'nginx', env: [{ name: 'A', value: '1' }] }]) }), at: 1 },
      { update: 'kubectl-edit', body: edit('spec.template.spec.containers.0.env.0.value', '2'), at: 2 },
      { apply: 'm1', body: dep({ template: template([{ name: 'nginx', env: [{ name: 'A', value: '1' }] }]) }), at: 3 },
    ],
    error: {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.template.spec.containers[name="nginx"].env[name="A"].value',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using apps/v1', field: '.spec.template.spec.containers[name="nginx"].env[name="A"].value' }],
      },
    },
  },
  {
    name: 'conflicts with several managers: message grouped by sorted manager, one cause per field',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { apply: 'm1', body: fullDeployment(2, 'nginx:1'), at: 1 },
      { update: 'kubectl-edit', body: edit('spec.template.spec.containers.0.image', 'nginx:2'), at: 2 },
      { apply: 'm3', body: dep({ replicas: 3, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:3' }] } } }), at: 3 },
    ],
    error: {
      code: 409,
      reason: 'Conflict',
      message:
        'Apply failed with 2 conflicts: conflicts with "kubectl-edit" using apps/v1:\n- .spec.template.spec.containers[name="nginx"].image\nconflicts with "m1":\n- .spec.replicas',
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using apps/v1', field: '.spec.template.spec.containers[name="nginx"].image' },
          { reason: 'FieldManagerConflict', message: 'conflict with "m1"', field: '.spec.replicas' },
        ],
      },
    },
  },
  {
    name: 'forcing over several managers takes every conflicting field; shared fields stay shared',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { apply: 'm1', body: fullDeployment(2, 'nginx:1'), at: 1 },
      { update: 'kubectl-edit', body: edit('spec.template.spec.containers.0.image', 'nginx:2'), at: 2 },
      { apply: 'm3', body: dep({ replicas: 3, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:3' }] } } }), force: true, at: 3 },
    ],
    object: dep({ replicas: 3, selector: { matchLabels: { app: 'web' } }, template: template([{ name: 'nginx', image: 'nginx:3' }]) }),
    managedFields: [
      entry('m1', 'Apply', 'apps/v1', at(1), {
        'f:spec': { 'f:selector': {}, 'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:name': {} } } } } },
      }),
      entry('m3', 'Apply', 'apps/v1', at(3), { 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } }),
    ],
  },
  {
    name: 'a live list with duplicated keys: applying the key replaces all duplicates (forcing their owner)',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { update: 'creator', body: dep({ template: template([{ name: 'nginx', env: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] }]) }), at: 1 },
      { apply: 'm1', body: dep({ template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'A', value: '3' }] }] } } }), force: true, at: 2 },
    ],
    object: dep({ template: template([{ name: 'nginx', env: [{ name: 'A', value: '3' }] }]) }),
    managedFields: [
      entry('m1', 'Apply', 'apps/v1', at(2), {
        'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:name': {} } } } } },
      }),
      entry('creator', 'Update', 'apps/v1', at(1), {
        'f:spec': {
          'f:template': {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
            'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:env': {}, 'f:name': {}, 'f:resources': {} } } },
          },
        },
      }),
    ],
  },
  // ---- status and other subresources ----
  {
    name: 'apply to the status subresource records subresource "status" and owns only status',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { apply: 'm1', body: fullDeployment(2, 'nginx:1'), at: 1 },
      { apply: 'controller', subresource: 'status', body: dep({ replicas: 9 }, { status: { replicas: 2 } }), at: 2 },
    ],
    object: { ...dep({ replicas: 9, selector: { matchLabels: { app: 'web' } }, template: template([{ name: 'nginx', image: 'nginx:1' }]) }), status: { replicas: 2 } },
    managedFields: [
      entry('m1', 'Apply', 'apps/v1', at(1), {
        'f:spec': { 'f:replicas': {}, 'f:selector': {}, 'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
      }),
      entry('controller', 'Apply', 'apps/v1', at(2), { 'f:status': { 'f:replicas': {} } }, 'status'),
    ],
  },
  {
    name: 'a status applier is named with its subresource in conflicts',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { apply: 'controller', subresource: 'status', body: dep({}, { status: { replicas: 2 } }), at: 1 },
      { apply: 'other', subresource: 'status', body: dep({}, { status: { replicas: 3 } }), at: 2 },
    ],
    error: {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "controller" with subresource "status": .status.replicas',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "controller" with subresource "status"', field: '.status.replicas' }] },
    },
  },
  {
    name: 'status in an apply to the main resource is not owned',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [{ apply: 'm1', body: dep({ replicas: 1 }, { status: { replicas: 5 } }), at: 1 }],
    managedFields: [entry('m1', 'Apply', 'apps/v1', at(1), { 'f:spec': { 'f:replicas': {} } })],
  },
  {
    name: 'a status update owns status only (deployments/status resets spec and labels) and ignores body managedFields',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { apply: 'm1', body: fullDeployment(2, 'nginx:1'), at: 1 },
      {
        update: 'kube-controller-manager',
        subresource: 'status',
        body: (cur) => edit('metadata.managedFields', [{}])(edit('metadata.labels', { x: 'y' })(edit('status', { observedGeneration: 1, replicas: 2 })(cur))),
        at: 2,
      },
    ],
    managedFields: [
      entry('m1', 'Apply', 'apps/v1', at(1), {
        'f:spec': { 'f:replicas': {}, 'f:selector': {}, 'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
      }),
      entry('kube-controller-manager', 'Update', 'apps/v1', at(2), { 'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} } }, 'status'),
    ],
  },
  {
    name: 'a scale write owns spec.replicas under subresource "scale"',
    def: deployments,
    apiVersion: 'apps/v1',
    ops: [
      { apply: 'm1', body: fullDeployment(2, 'nginx:1'), at: 1 },
      { update: 'kubectl', subresource: 'scale', body: edit('spec.replicas', 5), at: 2 },
    ],
    managedFields: [
      entry('m1', 'Apply', 'apps/v1', at(1), {
        'f:spec': { 'f:selector': {}, 'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
      }),
      entry('kubectl', 'Update', 'apps/v1', at(2), { 'f:spec': { 'f:replicas': {} } }, 'scale'),
    ],
  },
  // ---- Service ports, Pod tolerations, finalizers, ownerReferences ----
  {
    name: 'Service ports are keyed by port+protocol; the same port over UDP is another item',
    def: services,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: svc({ selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] }), at: 1 },
      { apply: 'm2', body: svc({ ports: [{ port: 80, protocol: 'UDP', targetPort: 53 }] }), at: 2 },
    ],
    object: svc({ selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }, { port: 80, protocol: 'UDP', targetPort: 53 }] }),
    managedFields: [
      entry('m1', 'Apply', 'v1', at(1), { 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} } }, 'f:selector': {} } }),
      entry('m2', 'Apply', 'v1', at(2), { 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"UDP"}': { '.': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} } } } }),
    ],
  },
  {
    name: 'Service selector is an atomic map: a different selector conflicts as one field',
    def: services,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: svc({ selector: { app: 'web' } }), at: 1 },
      { apply: 'm2', body: svc({ selector: { app: 'web', tier: 'fe' } }), at: 2 },
    ],
    error: {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "m1": .spec.selector',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "m1"', field: '.spec.selector' }] },
    },
  },
  {
    name: 'Pod tolerations are atomic: a forced apply replaces the whole list',
    def: pods,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: pod({ containers: [{ name: 'c', image: 'i' }], tolerations: [{ key: 'a', operator: 'Exists' }] }), at: 1 },
      { apply: 'm2', body: pod({ tolerations: [{ key: 'b', operator: 'Exists' }] }), force: true, at: 2 },
    ],
    object: pod({ containers: [{ name: 'c', image: 'i' }], tolerations: [{ key: 'b', operator: 'Exists' }] }),
    managedFields: [
      entry('m1', 'Apply', 'v1', at(1), { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } }),
      entry('m2', 'Apply', 'v1', at(2), { 'f:spec': { 'f:tolerations': {} } }),
    ],
  },
  {
    name: 'finalizers are a set: values from two appliers merge, each owns its own',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({}, { finalizers: ['example.com/a'] }), at: 1 },
      { apply: 'm2', body: cm({}, { finalizers: ['example.com/b'] }), at: 2 },
    ],
    object: cm({}, { finalizers: ['example.com/a', 'example.com/b'] }),
    managedFields: [
      entry('m1', 'Apply', 'v1', at(1), { 'f:metadata': { 'f:finalizers': { 'v:"example.com/a"': {} } } }),
      entry('m2', 'Apply', 'v1', at(2), { 'f:metadata': { 'f:finalizers': { 'v:"example.com/b"': {} } } }),
    ],
  },
  {
    name: 'a finalizer the applier drops is removed; an applier left owning nothing disappears',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({}, { finalizers: ['example.com/a'] }), at: 1 },
      { apply: 'm2', body: cm({}, { finalizers: ['example.com/b'] }), at: 2 },
      { apply: 'm1', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' } }, at: 3 },
    ],
    object: cm({}, { finalizers: ['example.com/b'] }),
    managedFields: [entry('m2', 'Apply', 'v1', at(2), { 'f:metadata': { 'f:finalizers': { 'v:"example.com/b"': {} } } })],
  },
  {
    name: 'an update adding finalizers to an object without any owns the list itself too',
    def: configmaps,
    apiVersion: 'v1',
    ops: [
      { apply: 'm1', body: cm({ a: '1' }), at: 1 },
      { update: 'controller', body: edit('metadata.finalizers', ['example.com/x']), at: 2 },
    ],
    managedFields: [
      entry('m1', 'Apply', 'v1', at(1), { 'f:data': { 'f:a': {} } }),
      entry('controller', 'Update', 'v1', at(2), { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/x"': {} } } }),
    ],
  },
  {
    name: 'ownerReferences are keyed by uid, and each reference is atomic',
    def: configmaps,
    apiVersion: 'v1',
    ops: [{ apply: 'm1', body: cm({}, { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u-1' }] }), at: 1 }],
    managedFields: [
      entry('m1', 'Apply', 'v1', at(1), { 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u-1"}': {} } } }),
    ],
  },
  // ---- custom resources ----
  {
    name: 'custom resource: atomic lists by default, sets by value, maps by key, free-form fields granular',
    def: widgets,
    apiVersion: 'example.com/v1',
    ops: [
      {
        apply: 'm1',
        body: widget({
          tags: ['a', 'b'],
          aliases: ['x'],
          ports: [{ name: 'http', port: 80 }],
          labels: { k: 'v' },
          selector: { s: 't' },
          config: { anything: { nested: 1 }, list: [1, 2] },
        }),
        at: 1,
      },
    ],
    managedFields: [
      entry('m1', 'Apply', 'example.com/v1', at(1), {
        'f:spec': {
          'f:aliases': { 'v:"x"': {} },
          'f:config': { 'f:anything': { '.': {}, 'f:nested': {} }, 'f:list': {} },
          'f:labels': { 'f:k': {} },
          'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
          'f:selector': {},
          'f:tags': {},
        },
      }),
    ],
  },
  {
    name: 'custom resource: an atomic list changed by another applier conflicts as a whole',
    def: widgets,
    apiVersion: 'example.com/v1',
    ops: [
      { apply: 'm1', body: widget({ tags: ['a', 'b'] }), at: 1 },
      { apply: 'm2', body: widget({ tags: ['c'] }), at: 2 },
    ],
    error: {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "m1": .spec.tags',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "m1"', field: '.spec.tags' }] },
    },
  },
  {
    name: 'custom resource create (Update): spec itself is new, so "." on f:spec',
    def: widgets,
    apiVersion: 'example.com/v1',
    ops: [{ update: 'creator', body: widget({ replicas: 1 }), at: 1 }],
    managedFields: [entry('creator', 'Update', 'example.com/v1', at(1), { 'f:spec': { '.': {}, 'f:replicas': {} } })],
  },
  {
    name: 'custom resource: a whole struct field is removed when its applier drops all of it',
    def: widgets,
    apiVersion: 'example.com/v1',
    ops: [
      { apply: 'm1', body: widget({ replicas: 2, labels: { k: 'v' } }), at: 1 },
      { apply: 'm1', body: widget({ replicas: 2 }), at: 2 },
    ],
    object: widget({ replicas: 2 }),
    managedFields: [entry('m1', 'Apply', 'example.com/v1', at(2), { 'f:spec': { 'f:replicas': {} } })],
  },
  {
    name: 'custom resource: a map-list key an item omits takes the schema default',
    def: widgets,
    apiVersion: 'example.com/v1',
    ops: [
      { apply: 'm1', body: widget({ endpoints: [{ host: 'a', weight: 1 }] }), at: 1 },
      { apply: 'm2', body: widget({ endpoints: [{ host: 'a', protocol: 'UDP', weight: 2 }] }), at: 2 },
    ],
    object: widget({ endpoints: [{ host: 'a', weight: 1 }, { host: 'a', protocol: 'UDP', weight: 2 }] }),
    managedFields: [
      entry('m1', 'Apply', 'example.com/v1', at(1), { 'f:spec': { 'f:endpoints': { 'k:{"host":"a","protocol":"TCP"}': { '.': {}, 'f:host': {}, 'f:weight': {} } } } }),
      entry('m2', 'Apply', 'example.com/v1', at(2), { 'f:spec': { 'f:endpoints': { 'k:{"host":"a","protocol":"UDP"}': { '.': {}, 'f:host': {}, 'f:protocol': {}, 'f:weight': {} } } } }),
    ],
  },
  {
    name: 'custom resource with a status subresource: status applies own status only, main applies never own it',
    def: widgets,
    apiVersion: 'example.com/v1',
    ops: [
      { apply: 'm1', body: widget({ replicas: 1 }, { status: { phase: 'Pending' } }), at: 1 },
      { apply: 'ctrl', subresource: 'status', body: widget({ replicas: 7 }, { status: { phase: 'Ready', ready: 1 } }), at: 2 },
    ],
    managedFields: [
      entry('m1', 'Apply', 'example.com/v1', at(1), { 'f:spec': { 'f:replicas': {} } }),
      entry('ctrl', 'Apply', 'example.com/v1', at(2), { 'f:status': { 'f:phase': {}, 'f:ready': {} } }, 'status'),
    ],
  },
  {
    name: 'legacy patch-merge-key lists without a list type merge by key (and plain ones stay atomic)',
    def: gadgets,
    apiVersion: 'legacy.example.com/v1',
    ops: [
      { apply: 'm1', body: { apiVersion: 'legacy.example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { items: [{ name: 'a', value: '1' }], words: ['x'], plain: ['p'] } }, at: 1 },
      { apply: 'm2', body: { apiVersion: 'legacy.example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { items: [{ name: 'b', value: '2' }], words: ['y'] } }, at: 2 },
    ],
    object: { apiVersion: 'legacy.example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { items: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }], words: ['x', 'y'], plain: ['p'] } },
    managedFields: [
      entry('m1', 'Apply', 'legacy.example.com/v1', at(1), { 'f:spec': { 'f:items': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:plain': {}, 'f:words': { 'v:"x"': {} } } }),
      entry('m2', 'Apply', 'legacy.example.com/v1', at(2), { 'f:spec': { 'f:items': { 'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:words': { 'v:"y"': {} } } }),
    ],
  },
];

function withoutBookkeeping(obj: KubeObject): Body {
  const copy = structuredClone(obj) as Body;
  const meta = copy.metadata as Record<string, unknown>;
  delete meta.uid;
  delete meta.managedFields;
  return copy;
}

function run(c: Case): void {
  let current: KubeObject | undefined;
  let error: unknown;
  c.ops.forEach((op, i) => {
    const isLast = i === c.ops.length - 1;
    try {
      let next: KubeObject;
      if ('apply' in op) {
        next = applyServerSide(current, op.body as KubeObject, {
          manager: op.apply,
          force: op.force ?? false,
          apiVersion: c.apiVersion,
          subresource: op.subresource,
          def: c.def,
          now: at(op.at),
        });
      } else {
        const body = typeof op.body === 'function' ? op.body(structuredClone(current) as Body) : op.body;
        next = updateManagedFields(current, body as KubeObject, { manager: op.update, apiVersion: c.apiVersion, subresource: op.subresource, def: c.def, now: at(op.at) });
      }
      // What the store does: the first write gives the object its uid.
      current = { ...next, metadata: { ...next.metadata, uid: current?.metadata.uid ?? 'uid-1' } };
    } catch (e) {
      if (!isLast || !c.error) throw e;
      error = e;
    }
  });
  if (c.error) {
    assert.ok(error instanceof StatusError, `expected a StatusError, got ${String(error)}`);
    assert.equal(error.code, c.error.code);
    assert.equal(error.reason, c.error.reason);
    assert.equal(error.message, c.error.message);
    if (c.error.details !== undefined) assert.deepEqual(error.details, c.error.details);
  }
  if (c.object !== undefined) assert.deepEqual(withoutBookkeeping(current!), c.object);
  if (c.managedFields !== undefined) {
    const actual = current?.metadata.managedFields;
    if (c.managedFields === null) assert.equal(actual, undefined);
    else {
      assert.deepEqual(actual, c.managedFields);
      assert.equal(JSON.stringify(actual), JSON.stringify(c.managedFields), 'managedFields differ in key order');
    }
  }
}

for (const c of cases) test(c.name, () => run(c));

test('the scenario table has at least 40 cases', () => {
  assert.ok(cases.length >= 40, `only ${cases.length} cases`);
});
