import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

const ingresses = builtinTypeFacts('networking.k8s.io', 'ingresses');
const classes = builtinTypeFacts('networking.k8s.io', 'ingressclasses');
const policies = builtinTypeFacts('networking.k8s.io', 'networkpolicies');

const serviceCIDRs = builtinTypeFacts('networking.k8s.io', 'servicecidrs');
const ipAddresses = builtinTypeFacts('networking.k8s.io', 'ipaddresses');

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
  assert.deepEqual(errors, ['status.loadBalancer.ingress[0].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)', 'status.loadBalancer.ingress[1].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']);
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
  ['bad cidr', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0' } }] }] }, ['spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']],
  [
    'a bad except does not hide the next one',
    { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0', '10.2.0.0/24'] } }] }] },
    [
      'spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.0.1.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'spec.egress[0].to[0].ipBlock.except[1]: Invalid value: "10.2.0.0/24": must be a strict subset of `cidr`',
    ],
  ],
  ['except of the other family', { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['fd00::/64'] } }] }] }, ['spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "fd00::/64": must be a strict subset of `cidr`']],
  ['except equal to cidr', { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.0.0/8'] } }] }] }, ['spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`']],
  ['IPv6 except inside cidr', { ingress: [{ from: [{ ipBlock: { cidr: 'fd00::/48', except: ['fd00:0:0:1::/64'] } }] }] }, []],
  [
    'three policy types',
    { policyTypes: ['Ingress', 'Egress', 'Ingress'] },
    ['spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes'],
  ],
  ['except outside cidr', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24'] } }] }] }, ['spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`']],
  ['endPort below port', { ingress: [{ ports: [{ port: 100, endPort: 50 }] }] }, ['spec.ingress[0].ports[0].endPort: Invalid value: 100: must be greater than or equal to `port`']],
  ['endPort with a named port', { ingress: [{ ports: [{ port: 'http', endPort: 50 }] }] }, ['spec.ingress[0].ports[0].endPort: Invalid value: 50: may not be specified when `port` is non-numeric']],
  ['unknown policy type', { policyTypes: ['Sideways'] }, ['spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']],
];
for (const [name, spec, want] of policyCases) {
  test(`network policies: ${name}`, () => assert.deepEqual(createErrors(policies, { metadata: { name: 'np', namespace: 'default' }, spec: { podSelector: {}, ...spec } }), want));
}

// Source: pkg/apis/networking/validation/validation.go (ValidationOptionsForNetworking, ValidateNetworkPolicyUpdate).
test('network policies: an update may keep bad selector values while the stored podSelector is invalid', () => {
  const badValue = { podSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['not ok'] }] } };
  const old: KubeObject = { metadata: { name: 'np', namespace: 'default', resourceVersion: '4' }, spec: { ...badValue } };
  assert.deepEqual(updateErrors(policies, { metadata: { name: 'np', namespace: 'default' }, spec: { ...badValue, ingress: [{ from: [{ namespaceSelector: badValue.podSelector }] }] } }, old), []);
  const clean: KubeObject = { metadata: { name: 'np', namespace: 'default', resourceVersion: '4' }, spec: { podSelector: {} } };
  assert.deepEqual(updateErrors(policies, { metadata: { name: 'np', namespace: 'default' }, spec: { ...badValue } }, clean), [
    "spec.podSelector.matchExpressions[0].values[0]: Invalid value: \"not ok\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ]);
});

// Source: pkg/apis/networking/validation/validation.go (ValidateIngressUpdate: allowInvalidSecretName, allowInvalidWildcardHostRule).
test('ingresses: an update keeps what the stored ingress already got away with, and checks metadata as on create', () => {
  const stored = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'web', namespace: 'default', resourceVersion: '7' }, spec });
  const badSecret = { defaultBackend: backend, tls: [{ secretName: 'Bad_Secret' }] };
  assert.deepEqual(createErrors(ingresses, ing(badSecret)), [
    "spec.tls[0].secretName: Invalid value: \"Bad_Secret\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.deepEqual(updateErrors(ingresses, ing(badSecret), stored(badSecret)), []);
  const wildcard = { rules: [{ host: '*.example.com', http: { paths: [{ path: 'api', pathType: 'Prefix', backend }] } }] };
  assert.deepEqual(updateErrors(ingresses, ing(wildcard), stored(wildcard)), []);
  assert.deepEqual(updateErrors(ingresses, ing(wildcard), stored({ defaultBackend: backend })), ['spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path']);
  const labelled = ing({ defaultBackend: backend });
  labelled.metadata = { ...labelled.metadata, labels: { 'a b': 'x' } };
  assert.equal(updateErrors(ingresses, labelled, stored({ defaultBackend: backend })).filter((e) => e.startsWith('metadata.labels: Invalid value: "a b"')).length, 2);
});

// Source: pkg/apis/networking/validation/validation.go (ValidateServiceCIDR, validateCIDR, ValidateServiceCIDRUpdate).
const cidrObj = (cidrs?: unknown[]): KubeObject => ({ metadata: { name: 'extra' }, spec: cidrs === undefined ? {} : { cidrs } });
const serviceCIDRCases: [string, unknown[] | undefined, string[]][] = [
  ['dual-stack pair', ['10.96.0.0/16', 'fd00:10:96::/112'], []],
  ['no cidrs', undefined, ['spec.cidrs: Required value: at least one CIDR required']],
  ['three cidrs', ['10.0.0.0/24', '10.1.0.0/24', 'fd00::/64'], ['spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/24", "10.1.0.0/24", "fd00::/64"}}: may only hold up to 2 values']],
  [
    'two of one family',
    ['10.0.0.0/24', '10.1.0.0/24'],
    ['spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/24", "10.1.0.0/24"}}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'],
  ],
  ['no prefix length', ['10.0.0.0'], ['spec.cidrs[0]: Invalid value: "10.0.0.0": netip.ParsePrefix("10.0.0.0"): no \'/\'']],
  ['leading zero octet', ['10.0.010.0/24'], ['spec.cidrs[0]: Invalid value: "10.0.010.0/24": netip.ParsePrefix("10.0.010.0/24"): ParseAddr("10.0.010.0"): IPv4 field has octet with leading zero']],
  ['host bits set', ['10.0.0.1/24'], ['spec.cidrs[0]: Invalid value: "10.0.0.1/24": wrong CIDR format, IP doesn\'t match network IP address']],
  ['upper-case IPv6', ['FD00::/64'], ['spec.cidrs[0]: Invalid value: "FD00::/64": CIDR not in RFC 5952 canonical format']],
];
for (const [name, cidrs, want] of serviceCIDRCases) test(`service CIDRs: ${name}`, () => assert.deepEqual(createErrors(serviceCIDRs, cidrObj(cidrs)), want));

test('service CIDRs: cidrs are fixed at creation', () => {
  const old = { ...cidrObj(['10.96.0.0/16']), metadata: { name: 'extra', resourceVersion: '2' } };
  assert.deepEqual(updateErrors(serviceCIDRs, cidrObj(['10.96.0.0/16']), old), []);
  assert.deepEqual(updateErrors(serviceCIDRs, cidrObj(['10.96.0.0/16', 'fd00::/108']), old), ['spec.cidrs: Invalid value: []string{"10.96.0.0/16", "fd00::/108"}: field is immutable']);
});

// Source: pkg/apis/networking/validation/validation.go (ValidateIPAddressName, validateIPAddressParentReference, ValidateIPAddressUpdate).
const parentRef = { group: '', resource: 'services', namespace: 'default', name: 'web' };
const ipCases: [string, string, Record<string, unknown>, string[]][] = [
  ['a service address', '10.96.0.10', { parentRef }, []],
  ['a name that is no IP', 'web', { parentRef }, ['metadata.name: Invalid value: "web": ParseAddr("web"): unable to parse IP']],
  ['a non-canonical IPv6 name', 'fd00:0::a', { parentRef }, ['metadata.name: Invalid value: "fd00:0::a": must be a canonical format IP address']],
  ['no parent', '10.96.0.11', {}, ['spec.parentRef: Required value']],
  [
    'parent fields',
    '10.96.0.12',
    { parentRef: { group: 'Bad_Group', resource: '', name: 'a/b' } },
    [
      "spec.parentRef.group: Invalid value: \"Bad_Group\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.parentRef.resource: Required value',
      "spec.parentRef.name: Invalid value: \"a/b\": may not contain '/'",
    ],
  ],
];
for (const [name, ip, spec, want] of ipCases) test(`IP addresses: ${name}`, () => assert.deepEqual(createErrors(ipAddresses, { metadata: { name: ip }, spec }), want));

test('IP addresses: the parent reference is fixed at creation', () => {
  const old: KubeObject = { metadata: { name: '10.96.0.10', resourceVersion: '5' }, spec: { parentRef } };
  assert.deepEqual(updateErrors(ipAddresses, { metadata: { name: '10.96.0.10' }, spec: { parentRef: { ...parentRef, name: 'db' } } }, old), [
    'spec.parentRef: Invalid value: networking.ParentReference{Group:"", Resource:"services", Namespace:"default", Name:"db"}: field is immutable',
  ]);
  assert.deepEqual(updateErrors(ipAddresses, { metadata: { name: '10.96.0.10' }, spec: {} }, old), ['spec.parentRef: Required value', 'spec.parentRef: Invalid value: "null": field is immutable']);
});
