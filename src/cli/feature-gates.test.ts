import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KNOWN_FEATURE_GATES, parseFeatureGateFlag, resolveFeatureGates } from './feature-gates.ts';

test('parse: pairs trimmed, empty items skipped, Go bool spellings', () => {
  assert.deepEqual(parseFeatureGateFlag(' WatchList = true ,,AllBeta=F,'), { WatchList: true, AllBeta: false });
  assert.throws(() => parseFeatureGateFlag('A=tru'), { message: 'invalid value of A=tru, err: strconv.ParseBool: parsing "tru": invalid syntax' });
});

test('resolve: defaults for every known gate, explicit settings win', () => {
  const all = resolveFeatureGates({});
  assert.equal(Object.keys(all).length, KNOWN_FEATURE_GATES.size);
  assert.equal(all.WatchList, false);
  assert.equal(all.ConsistentListFromCache, true);
  assert.equal(resolveFeatureGates({ WatchList: true }).WatchList, true);
});

test('AllAlpha / AllBeta turn on alpha / beta gates not set explicitly', () => {
  const g = resolveFeatureGates({ AllAlpha: true, WatchList: false });
  assert.equal(g.AnonymousAuthConfigurableEndpoints, true);
  assert.equal(g.WatchList, false);
  assert.equal(g.WatchListClient, false);
  assert.equal(resolveFeatureGates({ AllBeta: true }).WatchListClient, true);
});

test('unknown and locked gates are rejected with component-base\'s messages', () => {
  assert.throws(() => resolveFeatureGates({ Bogus: true }), { message: 'unrecognized feature gate: Bogus' });
  assert.throws(() => resolveFeatureGates({ WatchBookmark: false }), { message: 'cannot set feature gate WatchBookmark to false, feature is locked to true' });
  assert.equal(resolveFeatureGates({ WatchBookmark: true }).WatchBookmark, true);
});
