// Services against kube 1.31: pkg/apis/core/v1/defaults.go SetDefaults_Service; pkg/apis/core/validation
// (ValidateService, validateServicePort, ValidateServiceClusterIPsRelatedFields, ValidateServiceUpdate and its
// validateUpgradeDowngrade*, validateLoadBalancerClassField, validateServiceExternalTrafficPolicy,
// ValidateServiceStatusUpdate / ValidateLoadBalancerStatus); pkg/registry/core/service/strategy.go
// (dropTypeDependentFields, the status strategy) and storage/{storage,alloc}.go (normalizeClusterIPs,
// patchAllocatedValues, initIPFamilyFields on a single-stack IPv4 cluster).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, isStatusError } from '../../../apis/errors.ts';
import type { KubeObject, RequestContext } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { statusUpdateErrors, testContext as ctx } from '../test-context.ts';
import { allocateClusterIP, allocateNodePort, inServiceCIDR } from './services.ts';

const facts = builtinTypeFacts('', 'services');
const strategy = facts.strategy;
type Spec = Record<string, unknown>;

function create(spec: Spec, name = 'web', annotations?: Record<string, string>): KubeObject {
  const svc: KubeObject = { metadata: { name, namespace: 'default', ...(annotations ? { annotations } : {}) }, spec };
  strategy.defaults?.(svc);
  strategy.prepareForCreate?.(svc, ctx);
  return svc;
}

function errors(svc: KubeObject): string[] {
  return (strategy.validate?.(svc, ctx) ?? []).map(fieldErrorString);
}

/** A create as the store runs it: defaults, beginWrite (here with no other Services), prepare, validate. */
async function createThroughStore(spec: Spec, name = 'web'): Promise<{ svc: KubeObject; errors: string[] } | string> {
  const svc: KubeObject = { metadata: { name, namespace: 'default' }, spec };
  strategy.defaults?.(svc);
  try {
    await strategy.beginWrite?.(svc, undefined, ctx, async () => () => [], undefined as never);
  } catch (e) {
    if (isStatusError(e)) return e.message;
    throw e;
  }
  strategy.prepareForCreate?.(svc, ctx);
  return { svc, errors: errors(svc) };
}

/** An update as the store runs it: beginWrite, defaults, prepareForUpdate, validateUpdate; or kube's 422 message. */
async function update(old: KubeObject, spec: Spec): Promise<{ svc: KubeObject; errors: string[] } | string> {
  const svc: KubeObject = { metadata: { ...structuredClone(old.metadata) }, spec };
  try {
    await strategy.beginWrite?.(svc, old, ctx, async () => () => [], undefined as never);
    strategy.defaults?.(svc);
    strategy.prepareForUpdate?.(svc, old, ctx);
  } catch (e) {
    if (isStatusError(e)) return e.message;
    throw e;
  }
  return { svc, errors: (strategy.validateUpdate?.(svc, old, ctx) ?? []).map(fieldErrorString) };
}

const refusal = (r: { errors: string[] } | string): string => {
  assert.equal(typeof r, 'string', `expected a 422, got ${JSON.stringify(r)}`);
  return r as string;
};
const accepted = (r: { svc: KubeObject; errors: string[] } | string): KubeObject => {
  assert.notEqual(typeof r, 'string', String(r));
  const { svc, errors: errs } = r as { svc: KubeObject; errors: string[] };
  assert.deepEqual(errs, []);
  return svc;
};
const specOf = (svc: KubeObject) => svc.spec as Spec;

test('ClusterIP defaults and allocation', () => {
  const svc = create({ selector: { app: 'web' }, ports: [{ port: 80 }] });
  const spec = specOf(svc);
  const ip = spec.clusterIP as string;
  assert.ok(inServiceCIDR(ip), ip);
  assert.deepEqual(spec, {
    selector: { app: 'web' },
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    sessionAffinity: 'None',
    type: 'ClusterIP',
    internalTrafficPolicy: 'Cluster',
    ipFamilyPolicy: 'SingleStack',
    ipFamilies: ['IPv4'],
    clusterIP: ip,
    clusterIPs: [ip],
  });
  assert.deepEqual(svc.status, {});
  assert.deepEqual(errors(svc), []);
});

test('NodePort and LoadBalancer get node ports and traffic policies', () => {
  const svc = create({ type: 'LoadBalancer', ports: [{ port: 443, targetPort: 'https', name: 'https' }, { port: 80, name: 'http' }] });
  const spec = svc.spec as { ports: { nodePort: number }[]; externalTrafficPolicy: string; allocateLoadBalancerNodePorts: boolean };
  for (const p of spec.ports) assert.ok(p.nodePort >= 30000 && p.nodePort <= 32767);
  assert.notEqual(spec.ports[0].nodePort, spec.ports[1].nodePort);
  assert.equal(spec.externalTrafficPolicy, 'Cluster');
  assert.equal(spec.allocateLoadBalancerNodePorts, true);
  assert.deepEqual(errors(svc), []);
  const cells = Object.fromEntries(facts.printerColumns.map((c) => [c.name, c.cell(svc)]));
  assert.equal(cells.Type, 'LoadBalancer');
  assert.equal(cells['External-IP'], '<pending>');
  assert.equal(cells['Port(s)'], `443:${spec.ports[0].nodePort}/TCP,80:${spec.ports[1].nodePort}/TCP`);
  assert.equal(cells.Selector, '<none>');
});

test('headless services: without a selector both families (RequireDualStack, even single-stack); with one, SingleStack IPv4', () => {
  const svc = create({ clusterIP: 'None', ports: [{ port: 80 }] });
  const spec = specOf(svc);
  assert.deepEqual(spec.clusterIPs, ['None']);
  assert.equal(spec.ipFamilyPolicy, 'RequireDualStack');
  assert.deepEqual(spec.ipFamilies, ['IPv4', 'IPv6']);
  assert.equal(facts.printerColumns[1].cell(svc), 'None');
  assert.deepEqual(errors(svc), []);
  const selected = specOf(create({ clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 80 }] }));
  assert.equal(selected.ipFamilyPolicy, 'SingleStack');
  assert.deepEqual(selected.ipFamilies, ['IPv4']);
  const single = specOf(create({ clusterIP: 'None', ipFamilyPolicy: 'SingleStack' }));
  assert.deepEqual(single.ipFamilies, ['IPv4']);
  // A headless Service without ports is valid.
  assert.deepEqual(errors(create({ clusterIP: 'None' })), []);
});

test('validation messages', () => {
  assert.deepEqual(errors(create({ selector: { app: 'x' } })), ['spec.ports: Required value']);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }, { port: 81 }] })), ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value']);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }] }, '1web')), [
    `metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
  ]);
  assert.deepEqual(errors(create({ type: 'Fancy', ports: [{ port: 80 }] })), ['spec.type: Unsupported value: "Fancy": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']);
  assert.deepEqual(errors(create({ ports: [{ port: 80, nodePort: 30080 }] })), ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
  assert.deepEqual(errors(create({ clusterIP: '192.168.0.1', ports: [{ port: 80 }] })), [
    'spec.clusterIPs: Invalid value: []string{"192.168.0.1"}: failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
  ]);
  assert.deepEqual(errors(create({ type: 'ExternalName', externalName: 'db.example.com' })), []);
});

test('duplicate ports print the core.ServicePort kube keys them by; duplicate node ports their number', () => {
  assert.deepEqual(errors(create({ ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80, targetPort: 8080 }, { name: 'c', port: 80, protocol: 'UDP' }] })), [
    'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
  ]);
  assert.deepEqual(errors(create({ type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30080 }, { name: 'b', port: 81, nodePort: 30080 }] })), [
    'spec.ports[1].nodePort: Duplicate value: 30080',
  ]);
  assert.deepEqual(errors(create({ ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81 }] })), ['spec.ports[1].name: Duplicate value: "a"']);
});

test('clusterIP and clusterIPs: kube refuses them before allocating, alone (initIPFamilyFields)', async () => {
  const cases: [Spec, string][] = [
    [{ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.11'] }, 'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.11"}: first value must match `clusterIP`'],
    [{ clusterIPs: ['10.96.0.11'] }, 'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.11"}: must be empty when `clusterIP` is not specified'],
    [{ clusterIP: 'None', clusterIPs: ['None', '10.96.0.5'] }, `Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"None", "10.96.0.5"}: 'None' must be the first and only value`],
    [
      { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', '10.96.0.11', '10.96.0.12'] },
      'Service "web" is invalid: [spec.clusterIPs: Invalid value: []string{"10.96.0.10", "10.96.0.11", "10.96.0.12"}: may only hold up to 2 values, ' +
        'spec.clusterIPs: Invalid value: []string{"10.96.0.10", "10.96.0.11", "10.96.0.12"}: may specify no more than one IP for each IP family]',
    ],
    [{ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', '10.96.0.11'] }, 'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10", "10.96.0.11"}: may specify no more than one IP for each IP family'],
    [{ clusterIP: '10.96.0.300' }, 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    [{ clusterIP: 'fe80::1%eth0' }, 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: "fe80::1%eth0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    [{ ipFamilies: ['IPv4', 'IPv4'] }, 'Service "web" is invalid: spec.ipFamilies[1]: Duplicate value: "IPv4"'],
    [{ ipFamilies: ['IPv5'] }, 'Service "web" is invalid: spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"'],
    [{ ipFamilyPolicy: 'DualStack' }, 'Service "web" is invalid: spec.ipFamilyPolicy: Unsupported value: "DualStack": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"'],
    [{ clusterIP: '10.96.0.10', ipFamilies: ['IPv6'] }, 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: "10.96.0.10": expected an IPv6 value as indicated by `ipFamilies[0]`'],
    // This cluster is single-stack IPv4.
    [{ ipFamilies: ['IPv6'] }, 'Service "web" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster'],
    [{ clusterIP: 'fd00::10' }, 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::10"}: IPv6 is not configured on this cluster'],
    [{ ipFamilyPolicy: 'RequireDualStack' }, 'Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services'],
    [
      { ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv4', 'IPv6'] },
      'Service "web" is invalid: spec.ipFamilies[1]: Invalid value: "IPv6": not configured on this cluster',
    ],
    [
      { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00::10'] },
      `Service "web" is invalid: [spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified, ` +
        'spec.clusterIPs[1]: Invalid value: []string{"10.96.0.10", "fd00::10"}: IPv6 is not configured on this cluster]',
    ],
    [
      { ipFamilies: ['IPv4', 'IPv6'] },
      // The families are checked against the cluster only once the policy fits them.
      `Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`,
    ],
  ];
  for (const [spec, want] of cases) assert.equal(refusal(await createThroughStore({ selector: { app: 'web' }, ports: [{ port: 80 }], ...spec })), want, JSON.stringify(spec));

  // PreferDualStack is kept on a single-stack cluster, with the one family it has.
  const prefer = specOf(accepted(await createThroughStore({ selector: { app: 'web' }, ports: [{ port: 80 }], ipFamilyPolicy: 'PreferDualStack' })));
  assert.deepEqual([prefer.ipFamilyPolicy, prefer.ipFamilies], ['PreferDualStack', ['IPv4']]);
  // clusterIP alone (an old client) fills clusterIPs.
  const old = specOf(accepted(await createThroughStore({ clusterIP: '10.96.0.10', ports: [{ port: 80 }] })));
  assert.deepEqual(old.clusterIPs, ['10.96.0.10']);
  // A headless Service without a selector may ask for IPv6 first.
  const six = specOf(accepted(await createThroughStore({ clusterIP: 'None', ipFamilies: ['IPv6'] })));
  assert.deepEqual([six.ipFamilyPolicy, six.ipFamilies], ['RequireDualStack', ['IPv6', 'IPv4']]);
});

test('updates keep allocated values and forbid changing the cluster IP', async () => {
  const old = create({ type: 'NodePort', ports: [{ port: 80, name: 'http' }] });
  old.metadata.resourceVersion = '3';
  const oldSpec = old.spec as { clusterIP: string; ports: { nodePort: number }[] };
  const spec = specOf(accepted(await update(old, { type: 'NodePort', ports: [{ port: 80, name: 'http' }] }))) as typeof oldSpec;
  assert.equal(spec.clusterIP, oldSpec.clusterIP);
  assert.equal(spec.ports[0].nodePort, oldSpec.ports[0].nodePort);

  // clusterIP alone changed: clusterIPs follow it, and the primary IP may not change.
  const moved = await update(old, { ...structuredClone(old.spec as Spec), clusterIP: '10.96.5.5' });
  assert.deepEqual((moved as { errors: string[] }).errors, ['spec.clusterIPs[0]: Invalid value: []string{"10.96.5.5"}: may not change once set']);
  // clusterIPs alone changed: they no longer match clusterIP, refused before anything else.
  assert.equal(
    refusal(await update(old, { ...structuredClone(old.spec as Spec), clusterIPs: ['10.96.5.5'] })),
    'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.5.5"}: first value must match `clusterIP`',
  );
  // Families: SingleStack with two.
  assert.equal(
    refusal(await update(old, { ...structuredClone(old.spec as Spec), ipFamilies: ['IPv4', 'IPv6'] })),
    `Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`,
  );
});

test('ValidateServiceUpdate: primary cluster IP and family (kube prints the whole slices, and its own quirks)', () => {
  const old = create({ selector: { app: 'web' }, ports: [{ port: 80 }] });
  old.metadata.resourceVersion = '3';
  const validateUpdate = (patch: Spec) => {
    const svc: KubeObject = { metadata: structuredClone(old.metadata), spec: { ...structuredClone(old.spec as Spec), ...patch } };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete (svc.spec as Spec)[k];
    return (strategy.validateUpdate?.(svc, old, ctx) ?? []).map(fieldErrorString);
  };
  assert.deepEqual(validateUpdate({ clusterIP: undefined, clusterIPs: undefined, ipFamilies: undefined }), [
    'spec.clusterIPs[0]: Invalid value: []string(nil): primary clusterIP can not be unset',
    'spec.ipFamilies[0]: Invalid value: []core.IPFamily(nil): primary ipFamily can not be unset',
  ]);
  assert.deepEqual(validateUpdate({ clusterIP: '10.96.5.5', clusterIPs: ['10.96.5.5'] }), ['spec.clusterIPs[0]: Invalid value: []string{"10.96.5.5"}: may not change once set']);
  assert.deepEqual(validateUpdate({ ipFamilies: ['IPv6'] }), [
    'spec.ipFamilies[0]: Invalid value: []core.IPFamily{"IPv6"}: may not change once set',
    `spec.clusterIPs[0]: Invalid value: ${JSON.stringify((old.spec as Spec).clusterIP)}: expected an IPv6 value as indicated by \`ipFamilies[0]\``,
  ]);
  // Growing the list with a new primary: kube shows clusterIPs as the value of the ipFamilies error.
  const ip = (old.spec as Spec).clusterIP as string;
  assert.deepEqual(validateUpdate({ ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv6', 'IPv4'], clusterIPs: [ip, 'fd00::1'] }), [
    `spec.ipFamilies[0]: Invalid value: []string{"${ip}", "fd00::1"}: may not change once set`,
    `spec.clusterIPs[0]: Invalid value: "${ip}": expected an IPv6 value as indicated by \`ipFamilies[0]\``,
    'spec.clusterIPs[1]: Invalid value: "fd00::1": expected an IPv4 value as indicated by `ipFamilies[1]`',
  ]);
});

test('secondary families: released only with SingleStack, which trims unchanged ones (headless without a selector)', async () => {
  const old = create({ clusterIP: 'None', ports: [{ port: 80 }] });
  old.metadata.resourceVersion = '3';
  assert.deepEqual(specOf(old).ipFamilies, ['IPv4', 'IPv6']);
  assert.equal(
    refusal(await update(old, { ...structuredClone(old.spec as Spec), ipFamilies: ['IPv4'] })),
    `Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be 'SingleStack' to release the secondary IP family`,
  );
  const trimmed = specOf(accepted(await update(old, { ...structuredClone(old.spec as Spec), ipFamilyPolicy: 'SingleStack' })));
  assert.deepEqual([trimmed.ipFamilyPolicy, trimmed.ipFamilies], ['SingleStack', ['IPv4']]);
  // A client that leaves the families out gets them back as kube infers them.
  const again = specOf(accepted(await update(old, { clusterIP: 'None', ports: [{ port: 80 }] })));
  assert.deepEqual([again.ipFamilyPolicy, again.ipFamilies, again.clusterIPs], ['RequireDualStack', ['IPv4', 'IPv6'], ['None']]);
});

test('ValidateService: ports kubelet owns, external IPs, source ranges, load-balancer class, health check port, annotations', () => {
  const lb = (extra: Spec) => errors(create({ type: 'LoadBalancer', ports: [{ port: 80 }], ...extra }));
  assert.deepEqual(errors(create({ type: 'LoadBalancer', ports: [{ port: 10250 }] })), ['spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet']);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }], externalIPs: ['203.0.113.7', '127.0.0.1', 'nope', '0.0.0.0'] })), [
    'spec.externalIPs[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    'spec.externalIPs[2]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'spec.externalIPs[3]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
  ]);
  assert.deepEqual(lb({ loadBalancerSourceRanges: [' 10.0.0.0/8 ', '10.0.0.0/33'] }), [
    'spec.LoadBalancerSourceRanges[1]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ]);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }], loadBalancerSourceRanges: ['10.0.0.0/8'] })), ["spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'"]);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }] }, 'web', { 'service.beta.kubernetes.io/load-balancer-source-ranges': '10.0.0.0/8, bad' })), [
    "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Forbidden: may only be used when `type` is 'LoadBalancer'",
    'metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Invalid value: "bad": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ]);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }], loadBalancerClass: 'example.com/lb' })), ["spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'"]);
  assert.match(lb({ loadBalancerClass: 'not a name' })[0], /^spec\.loadBalancerClass: Invalid value: "not a name": name part must consist of alphanumeric characters/);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }], healthCheckNodePort: 30123 })), [
    "spec.healthCheckNodePort: Invalid value: 30123: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
  ]);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }], externalTrafficPolicy: 'Local' })), ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services']);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }], trafficDistribution: 'Anywhere' })), ['spec.trafficDistribution: Unsupported value: "Anywhere": supported values: "PreferClose"']);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } } })), [
    'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400',
  ]);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }] }, 'web', { 'service.kubernetes.io/topology-mode': 'Auto', 'service.kubernetes.io/topology-aware-hints': 'auto' })), [
    'metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Auto": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified',
  ]);
  assert.deepEqual(errors(create({ type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] })), ["spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services"]);
});

test('load-balancer class and health check node port are immutable while they apply', async () => {
  const old = create({ type: 'LoadBalancer', loadBalancerClass: 'example.com/a', externalTrafficPolicy: 'Local', ports: [{ port: 80, name: 'http' }] });
  old.metadata.resourceVersion = '3';
  const hc = specOf(old).healthCheckNodePort as number;
  const r = await update(old, { ...structuredClone(old.spec as Spec), loadBalancerClass: 'example.com/b', healthCheckNodePort: hc === 31999 ? 31998 : 31999 });
  assert.deepEqual((r as { errors: string[] }).errors, ['spec.loadBalancerClass: Invalid value: "example.com/b": may not change once set', 'spec.healthCheckNodePort: Forbidden: field is immutable']);
});

test('a type change drops what only the old type needed, unless the client changed it (dropTypeDependentFields)', async () => {
  const old = create({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80, name: 'http' }] });
  old.metadata.resourceVersion = '3';
  old.status = { loadBalancer: { ingress: [{ ip: '198.51.100.1', ipMode: 'VIP' }] } };
  const oldSpec = specOf(old);
  assert.equal(typeof oldSpec.healthCheckNodePort, 'number');
  // A merge patch of type alone: every other field as stored.
  const svc = accepted(await update(old, { ...structuredClone(oldSpec), type: 'ClusterIP' }));
  const spec = specOf(svc);
  assert.deepEqual(spec.ports, [{ port: 80, name: 'http', protocol: 'TCP', targetPort: 80 }]);
  for (const gone of ['healthCheckNodePort', 'allocateLoadBalancerNodePorts', 'externalTrafficPolicy']) assert.equal(spec[gone], undefined, gone);
  assert.equal(spec.clusterIP, oldSpec.clusterIP);
  assert.deepEqual(svc.status, { loadBalancer: {} });
  // A node port the client changed stays, and ClusterIP refuses it as kube does (one the allocator did not pick).
  const allocated = (oldSpec.ports as Array<{ nodePort?: number }>)[0]!.nodePort;
  const nodePort = allocated === 30999 ? 31000 : 30999;
  const changed = await update(old, { ...structuredClone(oldSpec), type: 'ClusterIP', ports: [{ port: 80, name: 'http', protocol: 'TCP', targetPort: 80, nodePort }] });
  assert.deepEqual((changed as { errors: string[] }).errors, ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
  // Ports removed (no new node port) still count as unchanged.
  const fewer = await update(old, { ...structuredClone(oldSpec), type: 'ClusterIP', ports: [] });
  assert.deepEqual((fewer as { errors: string[] }).errors, ['spec.ports: Required value']);
});

test('to ExternalName: unchanged cluster IPs and families go, changed ones are refused; internalTrafficPolicy is not shown', async () => {
  const old = create({ selector: { app: 'web' }, ports: [{ port: 80 }] });
  old.metadata.resourceVersion = '3';
  const svc = accepted(await update(old, { ...structuredClone(old.spec as Spec), type: 'ExternalName', externalName: 'db.example.com' }));
  const spec = specOf(svc);
  for (const gone of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy', 'internalTrafficPolicy']) assert.equal(spec[gone], undefined, gone);
  const changed = await update(old, { ...structuredClone(old.spec as Spec), type: 'ExternalName', externalName: 'db.example.com', clusterIP: '10.96.7.7', clusterIPs: ['10.96.7.7'] });
  assert.deepEqual((changed as { errors: string[] }).errors, ['spec.clusterIPs: Forbidden: may not be set for ExternalName services']);
  // And back: a new cluster IP and the families again.
  const stored = { ...svc, metadata: { ...svc.metadata, resourceVersion: '4' } };
  const back = specOf(accepted(await update(stored, { type: 'ClusterIP', selector: { app: 'web' }, ports: [{ port: 80 }] })));
  assert.ok(inServiceCIDR(back.clusterIP as string));
  assert.deepEqual([back.ipFamilyPolicy, back.ipFamilies, back.internalTrafficPolicy], ['SingleStack', ['IPv4'], 'Cluster']);
});

test('status writes: load-balancer ingress only for LoadBalancer, ip and ipMode rules, hostnames (ValidateLoadBalancerStatus)', () => {
  const lb = create({ type: 'LoadBalancer', ports: [{ port: 80 }] });
  lb.metadata.resourceVersion = '3';
  const write = (old: KubeObject, ingress: unknown[], context: RequestContext = ctx) => {
    const obj: KubeObject = { ...structuredClone(old), spec: { type: 'NodePort' }, status: { loadBalancer: { ingress } } };
    return statusUpdateErrors(facts, obj, old, context);
  };
  const ok = write(lb, [{ ip: '198.51.100.7' }, { hostname: 'lb.example.com' }]);
  assert.deepEqual(ok.errors, []);
  assert.deepEqual(ok.merged.status, { loadBalancer: { ingress: [{ ip: '198.51.100.7', ipMode: 'VIP' }, { hostname: 'lb.example.com' }] } });
  assert.deepEqual(ok.merged.spec, lb.spec, 'a status write keeps the spec');
  assert.deepEqual(write(lb, [{ ip: 'nope', ipMode: 'VIP' }, { hostname: 'lb.example.com', ipMode: 'Proxy' }, { ip: '198.51.100.8', ipMode: 'Tunnel' }, { hostname: '198.51.100.9' }, { hostname: 'Bad_Host' }]).errors, [
    'status.loadBalancer.ingress[0].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'status.loadBalancer.ingress[1].ipMode: Forbidden: may not be specified when `ip` is not set',
    'status.loadBalancer.ingress[2].ipMode: Unsupported value: "Tunnel": supported values: "Proxy", "VIP"',
    'status.loadBalancer.ingress[3].hostname: Invalid value: "198.51.100.9": must be a DNS name, not an IP address',
    `status.loadBalancer.ingress[4].hostname: Invalid value: "Bad_Host": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ]);
  const cip = create({ ports: [{ port: 80 }] });
  cip.metadata.resourceVersion = '3';
  assert.deepEqual(write(cip, [{ ip: '198.51.100.7' }]).errors, ["status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"]);
  assert.deepEqual(write(cip, []).errors, []);
});

test('feature gates: LoadBalancerIPMode off drops ipMode (unless stored), ServiceTrafficDistribution off drops trafficDistribution', () => {
  const off = builtinTypeFacts('', 'services', { LoadBalancerIPMode: false, ServiceTrafficDistribution: false });
  const lb: KubeObject = { metadata: { name: 'web', namespace: 'default', resourceVersion: '3' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } };
  off.strategy.defaults?.(lb);
  off.strategy.prepareForCreate?.(lb, ctx);
  const r = statusUpdateErrors(off, { ...structuredClone(lb), status: { loadBalancer: { ingress: [{ ip: '198.51.100.7', ipMode: 'Proxy' }] } } }, lb);
  assert.deepEqual([r.errors, r.merged.status], [[], { loadBalancer: { ingress: [{ ip: '198.51.100.7' }] } }]);
  const svc: KubeObject = { metadata: { name: 'td', namespace: 'default' }, spec: { ports: [{ port: 80 }], trafficDistribution: 'PreferClose' } };
  off.strategy.defaults?.(svc);
  off.strategy.prepareForCreate?.(svc, ctx);
  assert.equal(specOf(svc).trafficDistribution, undefined);
});

test('services are created by a PUT of a missing name (AllowCreateOnUpdate)', () => {
  assert.equal(strategy.allowCreateOnUpdate, true);
});

test('allocators avoid used values', () => {
  const ip = allocateClusterIP();
  assert.ok(inServiceCIDR(ip));
  assert.notEqual(ip, '10.96.0.1');
  const used = new Set<number>();
  for (let p = 30000; p <= 32766; p++) used.add(p);
  assert.equal(allocateNodePort(used), 32767);
  assert.deepEqual(facts.selectableFields['spec.type'](create({ ports: [{ port: 1 }] })), 'ClusterIP');
});
