import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

const ingresses = builtinTypeFacts('networking.k8s.io', 'ingresses');
const classes = builtinTypeFacts('networking.k8s.io', 'ingressclasses');
const policies = builtinTypeFacts('networking.k8s.io', 'networkpolicies');

const backend = { service: { name: 'web', port: { number: 80 } } };
const ing = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({ metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) }, spec });
const rule = (path: Record<string, unknown>, host?: string) => ({ ...(host ? { host } : {}), http: { paths: [{ backend, ...path }] } });

// Source: pkg/apis/networking/validation/validation.go (ValidateIngressSpec, validateHTTPIngressPath, validateIngressBackend).
const ingressCases: [string, Record<string, unknown>, string[]][] = [
  ['a valid ingress', { ingressClassName: 'nginx', rules: [rule({ path: '/', pathType: 'Prefix' }, 'shop.example.com')], tls: [{ hosts: ['*.example.com'], secretName: 'tls' }] }, []],
  ['no rules nor default backend', {}, ['spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']],
  ['pathType missing', { rules: [rule({ path: '/' })] }, ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']],
  ['relative Prefix path', { rules: [rule({ path: 'api', pathType: 'Prefix' })] }, ['spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path']],
  [
    'dot segments in an Exact path',
    { rules: [rule({ path: '/a/../b/.', pathType: 'Exact' })] },
    ["spec.rules[0].http.paths[0].path: Invalid value: \"/a/../b/.\": must not contain '/../'", "spec.rules[0].http.paths[0].path: Invalid value: \"/a/../b/.\": cannot end with '/.'"],
  ],
  ['unknown pathType', { rules: [rule({ path: '/', pathType: 'Regex' })] }, ['spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"']],
  ['IP host', { rules: [rule({ path: '/', pathType: 'Prefix' }, '10.0.0.1')] }, ['spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']],
  ['backend port missing', { defaultBackend: { service: { name: 'web', port: {} } } }, ['spec.defaultBackend: Required value: port name or number is required']],
  ['no backend', { defaultBackend: {} }, ['spec.defaultBackend: Invalid value: "": resource or service backend is required']],
];
for (const [name, spec, want] of ingressCases) test(`ingresses: ${name}`, () => assert.deepEqual(createErrors(ingresses, ing(spec)), want));

test('ingresses: the class annotation must agree on create; generation and status rules', () => {
  assert.deepEqual(createErrors(ingresses, ing({ ingressClassName: 'a', defaultBackend: backend }, { 'kubernetes.io/ingress.class': 'b' })), [
    'annotations.kubernetes.io/ingress.class: Invalid value: "b": must match `ingressClassName` when both are specified',
  ]);
  const old = ing({ defaultBackend: backend });
  createErrors(ingresses, old);
  assert.equal(old.metadata?.generation, 1);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  const next = ing({ defaultBackend: { service: { name: 'web', port: { number: 8080 } } } });
  assert.deepEqual(updateErrors(ingresses, next, old), []);
  assert.equal(next.metadata?.generation, 2);
  const { errors } = statusUpdateErrors(ingresses, { ...structuredClone(old), status: { loadBalancer: { ingress: [{ ip: 'x' }, { hostname: '10.0.0.1' }] } } }, old);
  assert.deepEqual(errors, ['status.loadBalancer.ingress[0].ip: Invalid value: "x": must be a valid IP address', 'status.loadBalancer.ingress[1].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']);
});

// Source: pkg/apis/networking/validation/validation.go (ValidateIngressClass/Update); networking/v1 defaults.go.
test('ingress classes: controller is a domain-prefixed path fixed at creation; parameters scope defaults to Cluster', () => {
  const ic: KubeObject = { metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx', parameters: { kind: 'Params', name: 'p' } } };
  assert.deepEqual(createErrors(classes, ic), []);
  assert.equal((ic.spec as { parameters: { scope: string } }).parameters.scope, 'Cluster');
  assert.deepEqual(createErrors(classes, { metadata: { name: 'x' }, spec: { controller: 'nginx' } }), ['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(createErrors(classes, { metadata: { name: 'x' }, spec: { controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Namespace' } } }), [
    "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
  ]);
  const old = structuredClone(ic);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  assert.deepEqual(updateErrors(classes, { metadata: { name: 'nginx' }, spec: { controller: 'example.com/other' } }, old), ['spec.controller: Invalid value: "example.com/other": field is immutable']);
});

// Source: pkg/apis/networking/validation/validation.go (ValidateNetworkPolicySpec); networking/v1 defaults.go.
test('network policies: policyTypes and port protocol defaults', () => {
  const np: KubeObject = { metadata: { name: 'np', namespace: 'default' }, spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } };
  assert.deepEqual(createErrors(policies, np), []);
  assert.deepEqual((np.spec as Record<string, unknown>).policyTypes, ['Ingress', 'Egress']);
  assert.deepEqual((np.spec as { egress: { ports: unknown[] }[] }).egress[0].ports, [{ port: 53, protocol: 'TCP' }]);
  const ingressOnly: KubeObject = { metadata: { name: 'np', namespace: 'default' }, spec: { podSelector: {} } };
  createErrors(policies, ingressOnly);
  assert.deepEqual((ingressOnly.spec as Record<string, unknown>).policyTypes, ['Ingress']);
});

const policyCases: [string, Record<string, unknown>, string[]][] = [
  ['empty peer', { ingress: [{ from: [{}] }] }, ['spec.ingress[0].from[0]: Required value: must specify a peer']],
  ['ipBlock with a selector', { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }] }, ['spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer']],
  ['bad cidr', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0' } }] }] }, ['spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0": not a valid CIDR']],
  ['except outside cidr', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24'] } }] }] }, ['spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`']],
  ['endPort below port', { ingress: [{ ports: [{ port: 100, endPort: 50 }] }] }, ['spec.ingress[0].ports[0].endPort: Invalid value: 100: must be greater than or equal to `port`']],
  ['endPort with a named port', { ingress: [{ ports: [{ port: 'http', endPort: 50 }] }] }, ['spec.ingress[0].ports[0].endPort: Invalid value: 50: may not be specified when `port` is non-numeric']],
  ['unknown policy type', { policyTypes: ['Sideways'] }, ['spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']],
];
for (const [name, spec, want] of policyCases) {
  test(`network policies: ${name}`, () => assert.deepEqual(createErrors(policies, { metadata: { name: 'np', namespace: 'default' }, spec: { podSelector: {}, ...spec } }), want));
}
