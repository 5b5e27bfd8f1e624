import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toleratedFor } from './taint-eviction.ts';

const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };

test('toleratedFor: at once when a taint is not tolerated; the shortest tolerationSeconds of the tolerations used; forever without one', () => {
  assert.equal(toleratedFor([], []), Infinity);
  assert.equal(toleratedFor([unreachable], []), undefined);
  assert.equal(toleratedFor([unreachable, notReady], [{ key: unreachable.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }]), undefined);
  assert.equal(toleratedFor([unreachable], [{ key: unreachable.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }]), 300_000);
  assert.equal(toleratedFor([unreachable], [{ key: unreachable.key, operator: 'Exists' }]), Infinity);
  assert.equal(toleratedFor([unreachable], [{ operator: 'Exists' }]), Infinity);
  assert.equal(toleratedFor([unreachable], [{ key: unreachable.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 }]), 0);
  assert.equal(toleratedFor([unreachable], [{ key: unreachable.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: -5 }]), 0);
  // The first toleration matching each taint is the one used: a later, shorter one does not count.
  assert.equal(
    toleratedFor([unreachable], [
      { key: unreachable.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 600 },
      { operator: 'Exists', tolerationSeconds: 10 },
    ]),
    600_000,
  );
  assert.equal(
    toleratedFor([unreachable, notReady], [
      { key: unreachable.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 600 },
      { key: notReady.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
    ]),
    120_000,
  );
  assert.equal(toleratedFor([{ key: 'k', value: 'v', effect: 'NoExecute' }], [{ key: 'k', value: 'w', effect: 'NoExecute' }]), undefined);
});
