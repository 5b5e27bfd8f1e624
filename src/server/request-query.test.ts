import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestQuery } from './request-query.ts';

test('a request query is parsed once; requests without one share an empty query that cannot be changed', () => {
  const req = { url: '/api/v1/pods?watch=true&labelSelector=a%3Db' };
  const q = requestQuery(req);
  assert.equal(q.get('watch'), 'true');
  assert.equal(q.get('labelSelector'), 'a=b');
  assert.equal(requestQuery(req), q);
  const a = requestQuery({ url: '/api/v1/pods' });
  const b = requestQuery({ url: '/api/v1/pods?' });
  assert.equal(a, b);
  assert.equal([...a].length, 0);
  assert.equal(a.get('dryRun'), null);
  assert.deepEqual(a.getAll('dryRun'), []);
  for (const change of [() => a.set('x', '1'), () => a.append('x', '1'), () => a.delete('x'), () => a.sort()]) assert.throws(change, TypeError);
  assert.equal(requestQuery({ url: '/other' }).has('x'), false);
});
