import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceWarnings } from './service-warnings.ts';

test('a plain Service warns about nothing', () => {
  assert.deepEqual(serviceWarnings({ spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00::a'], externalIPs: ['203.0.113.1', '::ffff:1.2.3.4'] } }), []);
});

test('addresses Go netip refuses or that are not written canonically, as kube 1.31 words them', () => {
  assert.deepEqual(
    serviceWarnings({
      spec: {
        type: 'LoadBalancer',
        clusterIP: '10.96.0.10',
        clusterIPs: ['10.96.0.10', '2001:db8:0:0:0:0:0:1'],
        loadBalancerIP: '010.1.1.1',
        loadBalancerSourceRanges: ['10.0.0.0/8', '10.0.0.0/08', '2001:DB8::/32', '010.0.0.0/8'],
      },
    }),
    [
      'spec.clusterIPs[1]: IPv6 address "2001:db8:0:0:0:0:0:1" is not in RFC 5952 canonical format ("2001:db8::1"), which may cause controller apply-loops',
      'spec.loadBalancerIP: IP address was accepted, but will be invalid in a future Kubernetes release: ParseAddr("010.1.1.1"): IPv4 field has octet with leading zero',
      'spec.loadBalancerSourceRanges[1]: IP prefix was accepted, but will be invalid in a future Kubernetes release: netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"',
      'spec.loadBalancerSourceRanges[2]: IPv6 prefix "2001:DB8::/32" is not in RFC 5952 canonical format ("2001:db8::/32"), which may cause controller apply-loops',
      'spec.loadBalancerSourceRanges[3]: IP prefix was accepted, but will be invalid in a future Kubernetes release: netip.ParsePrefix("010.0.0.0/8"): ParseAddr("010.0.0.0"): IPv4 field has octet with leading zero',
    ],
  );
  // A headless Service's cluster IPs are not looked at (helper.IsServiceIPSet).
  assert.deepEqual(serviceWarnings({ spec: { clusterIP: 'None', clusterIPs: ['None'] } }), []);
});

test('the topology hints annotation and the fields a type ignores', () => {
  assert.deepEqual(serviceWarnings({ metadata: { annotations: { 'service.kubernetes.io/topology-aware-hints': 'auto' } }, spec: { type: 'ExternalName', externalName: 'db.example.com', externalIPs: ['203.0.113.1'] } }), [
    'annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead',
    'spec.externalIPs is ignored when spec.type is "ExternalName"',
  ]);
  assert.deepEqual(serviceWarnings({ spec: { type: 'NodePort', externalName: 'db.example.com' } }), ['spec.externalName is ignored when spec.type is not "ExternalName"']);
});
