import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';

const ingresses = builtinTypeFacts('networking.k8s.io', 'ingresses');
const DEPRECATED = `annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`;
const ing = (spec: Record<string, unknown>): KubeObject => ({
  metadata: { name: 'web', namespace: 'default', annotations: { 'kubernetes.io/ingress.class': 'nginx' } },
  spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec },
});

// Source: pkg/registry/networking/ingress/strategy.go (WarningsOnCreate, WarningsOnUpdate).
test('ingresses: the class annotation warns on create only when spec.ingressClassName is unset', () => {
  assert.deepEqual(ingresses.strategy.warnings?.(ing({}), undefined), [DEPRECATED]);
  assert.deepEqual(ingresses.strategy.warnings?.(ing({ ingressClassName: 'nginx' }), undefined), []);
  assert.deepEqual(ingresses.strategy.warnings?.(ing({}), ing({})), []);
});
