import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERR_IMAGE_PULL_SHOWN_MS, imageReference, pullError, pullStep } from './image-pulls.ts';

test("imageReference: containerd's normalized names", () => {
  assert.equal(imageReference('nginx'), 'docker.io/library/nginx:latest');
  assert.equal(imageReference('nginx:1.27'), 'docker.io/library/nginx:1.27');
  assert.equal(imageReference('bitnami/redis'), 'docker.io/bitnami/redis:latest');
  assert.equal(imageReference('quay.io/org/app:v2'), 'quay.io/org/app:v2');
  assert.equal(imageReference('localhost:5000/app'), 'localhost:5000/app:latest');
  assert.equal(imageReference('registry.k8s.io/pause@sha256:abc'), 'registry.k8s.io/pause@sha256:abc');
  assert.equal(pullError('nginx:bad'), 'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:bad": failed to resolve reference "docker.io/library/nginx:bad": docker.io/library/nginx:bad: not found');
});

test('pullStep: a failed pull (ErrImagePull, shown for a moment), then the backoff (ImagePullBackOff) until it runs out, 10 s doubling', () => {
  const T0 = 1_000_000;
  const first = pullStep('app', 'nginx:bad', undefined, T0);
  assert.deepEqual([first.reason, first.backoff, first.wake], ['ErrImagePull', { backoffMs: 10_000, lastUpdate: T0 }, T0 + ERR_IMAGE_PULL_SHOWN_MS]);
  assert.deepEqual(first.events.map((e) => [e.type, e.reason, e.message]), [
    ['Normal', 'Pulling', 'Pulling image "nginx:bad"'],
    ['Warning', 'Failed', `Failed to pull image "nginx:bad": ${pullError('nginx:bad')}`],
    ['Warning', 'Failed', 'Error: ErrImagePull'],
  ]);
  const shown = pullStep('app', 'nginx:bad', first.backoff, T0 + 500);
  assert.deepEqual([shown.reason, shown.events, shown.backoff], ['ErrImagePull', [], undefined]);
  const waiting = pullStep('app', 'nginx:bad', first.backoff, T0 + 2000);
  assert.deepEqual([waiting.reason, waiting.message, waiting.wake], ['ImagePullBackOff', 'Back-off pulling image "nginx:bad"', T0 + 10_000]);
  assert.deepEqual(waiting.events.map((e) => [e.type, e.reason, e.message]), [['Normal', 'BackOff', 'Back-off pulling image "nginx:bad"'], ['Warning', 'Failed', 'Error: ImagePullBackOff']]);
  const again = pullStep('app', 'nginx:bad', first.backoff, T0 + 10_000);
  assert.deepEqual([again.reason, again.backoff], ['ErrImagePull', { backoffMs: 20_000, lastUpdate: T0 + 10_000 }]);
});
