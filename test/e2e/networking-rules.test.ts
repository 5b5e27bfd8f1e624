// kubectl against a real Capstan serving networking.k8s.io/v1beta1: NetworkPolicy, Ingress, ServiceCIDR and
// IPAddress writes refused with kube 1.31's messages (pkg/apis/networking/validation).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('networking rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ runtimeConfig: 'networking.k8s.io/v1beta1=true' });
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });
  const refused = (args: string[], input?: string) => s.kubectlRefused(args, { input });

  const policy = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: 'default' }, spec: { podSelector: {}, ...spec } });

  test('network policy: ipBlock CIDRs get IsValidCIDR message, three policyTypes print as a Go slice', async () => {
    assert.equal(
      await refused(['create', '-f', '-'], policy('cidr', { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0' } }] }] })),
      'The NetworkPolicy "cidr" is invalid: spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    );
    assert.equal(
      await refused(['create', '-f', '-'], policy('types', { policyTypes: ['Ingress', 'Egress', 'Ingress'] })),
      'The NetworkPolicy "types" is invalid: spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes',
    );
    await ok(['create', '-f', '-'], policy('except', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }] }] }));
    assert.equal(
      await refused(['patch', 'networkpolicy', 'except', '--type=json', '-p', '[{"op":"replace","path":"/spec/egress/0/to/0/ipBlock/except/0","value":"10.0.1.0"}]']),
      'The NetworkPolicy "except" is invalid: spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.0.1.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    );
  });

  test('ingress: a load-balancer IP in status gets IsValidIP message', async () => {
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: 'default' }, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } }));
    assert.equal(
      await refused(['patch', 'ingress', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"loadBalancer":{"ingress":[{"ip":"10.0.0.256"}]}}}']),
      'The Ingress "web" is invalid: status.loadBalancer.ingress[0].ip: Invalid value: "10.0.0.256": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    );
  });

  test('service CIDR: one CIDR per family, canonical networks, cidrs fixed at creation', async () => {
    const cidr = (name: string, cidrs: string[]) => JSON.stringify({ apiVersion: 'networking.k8s.io/v1beta1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs } });
    assert.equal(
      await refused(['create', '-f', '-'], cidr('twin', ['10.0.0.0/24', '10.1.0.0/24'])),
      'The ServiceCIDR "twin" is invalid: spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/24", "10.1.0.0/24"}}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    );
    assert.equal(
      await refused(['create', '-f', '-'], cidr('host', ['10.0.0.1/24'])),
      `The ServiceCIDR "host" is invalid: spec.cidrs[0]: Invalid value: "10.0.0.1/24": wrong CIDR format, IP doesn't match network IP address`,
    );
    assert.equal(
      await refused(['create', '-f', '-'], cidr('bare', ['10.0.0.0'])),
      `The ServiceCIDR "bare" is invalid: spec.cidrs[0]: Invalid value: "10.0.0.0": netip.ParsePrefix("10.0.0.0"): no '/'`,
    );
    await ok(['create', '-f', '-'], cidr('extra', ['10.200.0.0/24']));
    assert.equal(
      await refused(['patch', 'servicecidr', 'extra', '--type=merge', '-p', '{"spec":{"cidrs":["10.201.0.0/24"]}}']),
      'The ServiceCIDR "extra" is invalid: spec.cidrs: Invalid value: []string{"10.201.0.0/24"}: field is immutable',
    );
  });

  test('IP address: the name is a canonical IP, the parent reference is fixed at creation', async () => {
    const address = (name: string, parentName = 'web') =>
      JSON.stringify({ apiVersion: 'networking.k8s.io/v1beta1', kind: 'IPAddress', metadata: { name }, spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: parentName } } });
    assert.equal(await refused(['create', '-f', '-'], address('web')), 'The IPAddress "web" is invalid: metadata.name: Invalid value: "web": ParseAddr("web"): unable to parse IP');
    assert.equal(
      await refused(['create', '-f', '-'], address('fd00:0::a')),
      'The IPAddress "fd00:0::a" is invalid: metadata.name: Invalid value: "fd00:0::a": must be a canonical format IP address',
    );
    await ok(['create', '-f', '-'], address('10.200.0.10'));
    assert.equal(
      await refused(['patch', 'ipaddress', '10.200.0.10', '--type=merge', '-p', '{"spec":{"parentRef":{"name":"db"}}}']),
      'The IPAddress "10.200.0.10" is invalid: spec.parentRef: Invalid value: networking.ParentReference{Group:"", Resource:"services", Namespace:"default", Name:"db"}: field is immutable',
    );
  });
});
