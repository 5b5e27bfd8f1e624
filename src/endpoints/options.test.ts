import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../apis/errors.ts';
import {
  decodeDeleteOptionsQuery,
  decodeListOptions,
  decodeWriteOptions,
  deleteOptionsFromBody,
  parseGoInt64,
  validateDeleteOptions,
  validateListOptions,
} from './options.ts';

function statusOf(fn: () => unknown): { code: number; reason: string; message: string; causes?: unknown } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return { code: e.code, reason: e.reason, message: e.message, causes: e.details?.causes };
  }
  assert.fail('expected a StatusError');
}

const q = (s: string) => new URLSearchParams(s);

test('list options decode as kube ParameterCodec: lenient booleans, Go integers', () => {
  const o = decodeListOptions(q('watch=&allowWatchBookmarks=TRUE&limit=5&timeoutSeconds=%2B3&labelSelector=a%3Db&continue=tok&resourceVersion=10'));
  assert.equal(o.watch, true);
  assert.equal(o.allowWatchBookmarks, true);
  assert.equal(o.limit, 5);
  assert.equal(o.timeoutSeconds, 3);
  assert.equal(o.labelSelector, 'a=b');
  assert.equal(o.continue, 'tok');
  assert.equal(o.resourceVersion, '10');
  assert.equal(decodeListOptions(q('watch=0')).watch, false);
  assert.equal(decodeListOptions(q('watch=False')).watch, false);
});

test('malformed integers are 400 with strconv wording', () => {
  assert.deepEqual(statusOf(() => decodeListOptions(q('limit=abc'))), { code: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax', causes: undefined });
  assert.equal(statusOf(() => decodeListOptions(q('timeoutSeconds=1.5'))).message, 'strconv.ParseInt: parsing "1.5": invalid syntax');
  assert.throws(() => parseGoInt64('99999999999999999999'), /value out of range/);
});

test('list option combinations are validated as ValidateListOptions', () => {
  const s = statusOf(() => validateListOptions(decodeListOptions(q('resourceVersionMatch=Exact')), false));
  assert.equal(s.code, 422);
  assert.equal(s.reason, 'Invalid');
  assert.equal(s.message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  assert.deepEqual(s.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', field: 'resourceVersionMatch' }]);
  assert.equal(
    statusOf(() => validateListOptions(decodeListOptions(q('resourceVersion=1&resourceVersionMatch=Bogus')), false)).message,
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
  );
  assert.equal(
    statusOf(() => validateListOptions(decodeListOptions(q('sendInitialEvents=true')), false)).message,
    'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
  );
  assert.equal(
    statusOf(() => validateListOptions(decodeListOptions(q('watch=1&sendInitialEvents=true')), false)).message,
    'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled]',
  );
  validateListOptions(decodeListOptions(q('watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan')), true);
  validateListOptions(decodeListOptions(q('resourceVersion=5&resourceVersionMatch=NotOlderThan&limit=1')), false);
});

test('write options: dryRun must be All, fieldValidation one of the directives, Warn by default', () => {
  const ok = decodeWriteOptions(q('dryRun=All&fieldManager=me&fieldValidation=Strict'), 'CreateOptions');
  assert.deepEqual(ok, { dryRun: true, fieldManager: 'me', fieldValidation: 'Strict', force: undefined });
  assert.equal(decodeWriteOptions(q(''), 'UpdateOptions').fieldValidation, 'Warn');
  assert.equal(
    statusOf(() => decodeWriteOptions(q('dryRun=Bogus'), 'CreateOptions')).message,
    'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"',
  );
  assert.equal(
    statusOf(() => decodeWriteOptions(q('fieldValidation=Loud'), 'UpdateOptions')).message,
    'UpdateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
  );
  assert.equal(
    statusOf(() => decodeWriteOptions(q(`fieldManager=${'x'.repeat(129)}`), 'CreateOptions')).message,
    'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
  );
});

test('patch options: apply needs a field manager, force is for apply only', () => {
  assert.equal(
    statusOf(() => decodeWriteOptions(q(''), 'PatchOptions', true)).message,
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
  );
  assert.equal(
    statusOf(() => decodeWriteOptions(q('force=true'), 'PatchOptions', false)).message,
    'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
  );
  assert.equal(decodeWriteOptions(q('fieldManager=m&force=true'), 'PatchOptions', true).force, true);
});

test('delete options from the query and the body, validated as ValidateDeleteOptions', () => {
  const fromQuery = decodeDeleteOptionsQuery(q('gracePeriodSeconds=0&propagationPolicy=Foreground&dryRun=All'));
  validateDeleteOptions(fromQuery);
  assert.equal(fromQuery.gracePeriodSeconds, 0);
  assert.equal(fromQuery.propagationPolicy, 'Foreground');
  assert.equal(fromQuery.dryRun, true);
  const both = decodeDeleteOptionsQuery(q('orphanDependents=true&propagationPolicy=Orphan'));
  assert.equal(
    statusOf(() => validateDeleteOptions(both)).message,
    'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
  );
  const bad = decodeDeleteOptionsQuery(q('propagationPolicy=Sideways'));
  assert.equal(
    statusOf(() => validateDeleteOptions(bad)).message,
    'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
  );
  const body = deleteOptionsFromBody({ kind: 'DeleteOptions', preconditions: { uid: 'u', resourceVersion: '3' }, dryRun: ['All'] });
  validateDeleteOptions(body);
  assert.deepEqual(body.preconditions, { uid: 'u', resourceVersion: '3' });
  assert.equal(body.dryRun, true);
  assert.equal(statusOf(() => deleteOptionsFromBody({ gracePeriodSeconds: 'x' })).message, 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64');
});
