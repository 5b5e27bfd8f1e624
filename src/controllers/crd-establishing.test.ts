import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CustomResourceDefinition } from '../registry/apiextensions/crd-types.ts';
import { namesAndConditions } from './crd.ts';

const crd = (caBundle: string): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', kind: 'Widget' },
    conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://example.com', caBundle }, conversionReviewVersions: ['v1'] } },
  },
}) as CustomResourceDefinition;

test('a CRD whose conversion caBundle is invalid is not established', () => {
  const { established } = namesAndConditions(crd(Buffer.from('x').toString('base64')), []);
  assert.deepEqual([established.status, established.reason, established.message], ['False', 'InvalidCABundle', 'The conversion webhook CABundle is invalid']);
  assert.equal(namesAndConditions(crd(''), []).established.status, 'True');
});
