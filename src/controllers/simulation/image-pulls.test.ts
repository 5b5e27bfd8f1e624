import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERR_IMAGE_PULL_SHOWN_MS, imageNameError, imageReference, pullError, pullStep } from './image-pulls.ts';

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

test("imageNameError: reference.ParseNormalizedNamed's refusals, in the kubelet's message", () => {
  for (const ok of ['nginx', 'nginx:1.27-alpine', 'library/nginx', 'quay.io/org/app:v2', 'localhost:5000/app', 'registry.example.com:443/a/b/c:tag', 'app@sha256:' + 'a'.repeat(64), 'MyRegistry.io/app']) assert.equal(imageNameError(ok), undefined, ok);
  assert.equal(imageNameError('Nginx'), `Failed to apply default image tag "Nginx": couldn't parse image name "Nginx": invalid reference format: repository name (library/Nginx) must be lowercase`);
  assert.equal(imageNameError('quay.io/Org/app'), `Failed to apply default image tag "quay.io/Org/app": couldn't parse image name "quay.io/Org/app": invalid reference format: repository name (Org/app) must be lowercase`);
  assert.equal(imageNameError('nginx:'), `Failed to apply default image tag "nginx:": couldn't parse image name "nginx:": invalid reference format`);
  assert.equal(imageNameError('nginx:1.0 '), `Failed to apply default image tag "nginx:1.0 ": couldn't parse image name "nginx:1.0 ": invalid reference format`);
  assert.equal(imageNameError('a'.repeat(64)), `Failed to apply default image tag "${'a'.repeat(64)}": couldn't parse image name "${'a'.repeat(64)}": invalid repository name (${'a'.repeat(64)}), cannot specify 64-byte hexadecimal strings`);
});
