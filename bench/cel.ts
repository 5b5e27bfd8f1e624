// CEL rule cost on the custom resource write path: validating a CR against a schema with 10 x-kubernetes-validations
// rules (create, and update with transition rules), against JSON.parse of the same object's JSON (the raw limit every
// write pays anyway), in the same run. Also the one-off compile of the schema's rules (CRD write time).
//
//   node bench/cel.ts [--quick]

import { compileValidationRules } from '../src/registry/apiextensions/cel-rules.ts';
import type { JSONSchemaProps } from '../src/registry/apiextensions/json-schema-props.ts';
import { parseQuickFlag } from '../scripts/script-args.ts';

const quick = parseQuickFlag('node bench/cel.ts', 'CEL rule cost on the custom resource write path, against JSON.parse of the same object, and the one-off compile of the rules.');
const N = quick ? 20_000 : 100_000;

const schema: JSONSchemaProps = {
  type: 'object',
  'x-kubernetes-validations': [{ rule: "self.metadata.name.size() <= 63 && !self.metadata.name.startsWith('tmp-')", message: 'bad name' }],
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
        { rule: "self.mode in ['Auto', 'Manual', 'Off']" },
        { rule: "!has(self.image) || self.image.matches('^[a-z0-9./:-]+$')" },
        { rule: 'self.ports.all(p, p.port > 0 && p.port < 65536)' },
        { rule: "quantity(self.memory).isLessThan(quantity('64Gi'))" },
        { rule: 'self.mode == oldSelf.mode || oldSelf.mode == "Off"', message: 'mode may only change from Off' },
      ],
      properties: {
        minReplicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0' }] },
        maxReplicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self <= 1000' }] },
        mode: { type: 'string', maxLength: 16 },
        image: { type: 'string', maxLength: 256 },
        memory: { type: 'string', maxLength: 32 },
        labels: { type: 'object', maxProperties: 32, additionalProperties: { type: 'string', maxLength: 63 } },
        ports: {
          type: 'array',
          maxItems: 16,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: "self.name.matches('^[a-z]+$')" }] },
        },
      },
    },
  },
};

const object = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'widget-1', namespace: 'default', labels: { app: 'bench' } },
  spec: {
    minReplicas: 1,
    maxReplicas: 5,
    mode: 'Auto',
    image: 'registry.example.com/app/widget:1.2.3',
    memory: '512Mi',
    labels: { team: 'core', tier: 'backend' },
    ports: [
      { name: 'http', port: 8080 },
      { name: 'metrics', port: 9090 },
    ],
  },
};
const json = JSON.stringify(object);

function timeNs(n: number, fn: () => void): number {
  for (let i = 0; i < Math.min(n, 2000); i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - start) / n;
}

const compileNs = timeNs(quick ? 20 : 100, () => compileValidationRules(schema, 'spec.versions[0].schema.openAPIV3Schema'));
const { errors, rules } = compileValidationRules(schema, 'spec.versions[0].schema.openAPIV3Schema');
if (errors.length > 0) throw new Error(`bench schema does not compile: ${JSON.stringify(errors)}`);
if (rules.validate(object, undefined).length > 0) throw new Error('bench object does not validate');

let sink = 0;
const parseNs = timeNs(N, () => {
  sink += (JSON.parse(json) as { spec: { minReplicas: number } }).spec.minReplicas;
});
const createNs = timeNs(N, () => {
  sink += rules.validate(object, undefined).length;
});
const updated = { ...object, spec: { ...object.spec, maxReplicas: 6 } };
const updateNs = timeNs(N, () => {
  sink += rules.validate(updated, object).length;
});

const us = (ns: number) => (ns / 1000).toFixed(2);
process.stdout.write(`CEL rules on a custom resource (${json.length}-byte object, 10 rules + 2 item rules), ${N} iterations\n`);
process.stdout.write(`  raw limit: JSON.parse of the object: ${us(parseNs)} us\n`);
process.stdout.write(`  validate on create (9 rules run, transition rule skipped): ${us(createNs)} us | ${(createNs / parseNs).toFixed(2)}x JSON.parse\n`);
process.stdout.write(`  validate on update (10 rules + transition, ratcheting check): ${us(updateNs)} us | ${(updateNs / parseNs).toFixed(2)}x JSON.parse\n`);
process.stdout.write(`  compile the schema's rules (once per CRD version, cached per expression): ${us(compileNs)} us\n`);
if (sink < 0) process.stdout.write('');
