import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { HttpRequest } from '../../server/types.ts';
import type { KubeObject } from '../../registry/types.ts';
import { forwardedPod, forwardedPorts, wantsTunnel } from './simulated-portforward.ts';

test("forwardedPorts: the kubelet's reading of the ports a WebSocket port-forward asks for", () => {
  assert.deepEqual(forwardedPorts(['8080', '9090,53']), [8080, 9090, 53]);
  assert.equal(forwardedPorts([]), 'query parameter "port" is required');
  assert.equal(forwardedPorts(['http']), 'unable to parse "http" as a port: strconv.ParseUint: parsing "http": invalid syntax');
  assert.equal(forwardedPorts(['70000']), 'unable to parse "70000" as a port: strconv.ParseUint: parsing "70000": value out of range');
  assert.equal(forwardedPorts(['0']), 'port "0" must be > 0');
});

test('forwardedPod: the sandbox ID the runtime names is a digest of the pod uid; wantsTunnel reads the offered subprotocols', () => {
  const pod = forwardedPod({ metadata: { uid: 'u-1' } } as KubeObject, () => undefined);
  assert.equal(pod.sandbox, createHash('sha256').update('u-1').digest('hex'));
  const req = (protocol: string) => ({ headers: { 'sec-websocket-protocol': protocol } }) as unknown as HttpRequest;
  assert.equal(wantsTunnel(req('SPDY/3.1+portforward.k8s.io')), true);
  assert.equal(wantsTunnel(req('v4.channel.k8s.io, SPDY/3.1+portforward.k8s.io')), true);
  assert.equal(wantsTunnel(req('v4.channel.k8s.io')), false);
});
