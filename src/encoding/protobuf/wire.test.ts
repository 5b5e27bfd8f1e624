import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireType as PackageWireType } from '@bufbuild/protobuf/wire';
import { WireType, binaryReader, binaryWriter } from './wire.ts';

test("the wire types are the package's", () => {
  assert.deepEqual({ ...WireType }, Object.fromEntries(Object.entries(PackageWireType).filter(([k]) => Number.isNaN(Number(k)))));
});

test('a writer and a reader from the lazily loaded package round-trip a message', () => {
  const bytes = binaryWriter().tag(1, WireType.LengthDelimited).string('name').tag(2, WireType.Varint).int64(42).finish();
  const r = binaryReader(bytes);
  assert.deepEqual(r.tag(), [1, WireType.LengthDelimited]);
  assert.equal(r.string(), 'name');
  assert.deepEqual(r.tag(), [2, WireType.Varint]);
  assert.equal(String(r.int64()), '42');
  assert.equal(r.pos, r.len);
});
