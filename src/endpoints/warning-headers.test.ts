import assert from 'node:assert/strict';
import { test } from 'node:test';
import { warningHeaderValues } from './respond.ts';

const latin1ToUtf8 = (v: string) => Buffer.from(v, 'latin1').toString('utf8');

test('warnings: repeats dropped, control characters refused, quotes and backslashes escaped', () => {
  assert.deepEqual(warningHeaderValues(['a', 'b', 'a', '', 'bad\ntext', 'say "hi" \\ there']), ['299 - "a"', '299 - "b"', '299 - "say \\"hi\\" \\\\ there"']);
});

test('warnings past the total are cut to the item length and later ones dropped, as kube truncates them', () => {
  // kube's own case (TestTruncation), with its limits lowered to 25 and 5 runes.
  const values = warningHeaderValues(['aaaaaaaaaa', 'aaaaaaaaaa', 'bb', 'ccc', 'Iñtërnâtiô', 'e', 'ffffffffff', 'ffffffffff', 'gggggggggg', 'h'], 25, 5).map(latin1ToUtf8);
  assert.deepEqual(values, ['299 - "aaaaa"', '299 - "bb"', '299 - "ccc"', '299 - "Iñtër"', '299 - "e"', '299 - "fffff"', '299 - "ggggg"']);
  // Under the default limits (4 Ki runes, 256 each) nothing is cut.
  const long = 'x'.repeat(1000);
  assert.deepEqual(warningHeaderValues([long, `${long}y`]).map((v) => v.length), [1008, 1009]);
  const many = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(300, '.'));
  const cut = warningHeaderValues(many);
  assert.equal(cut.length, 16);
  assert.ok(cut.every((v) => v.length === 256 + 8));
});
