import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupName, createLogBackend, parseAuditLog } from './log-backend.ts';
import type { AuditEvent } from './types.ts';
import { microTime } from '../../registry/store-codec.ts';

const event = (i: number, pad: number): AuditEvent => ({
  kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: `id-${i}`, stage: 'ResponseComplete', requestURI: `/x/${'a'.repeat(pad)}`, verb: 'get',
  user: { username: 'u' }, requestReceivedTimestamp: microTime(0), stageTimestamp: microTime(0),
});

test('backups are named as lumberjack names them', () => {
  assert.equal(backupName('/var/log/audit.log', new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678))), '/var/log/audit-2024-01-02T03-04-05.678.log');
  assert.equal(microTime(Date.UTC(2024, 0, 2, 3, 4, 5, 678) + 0.123), '2024-01-02T03:04:05.678123Z');
});

test('the log rotates past maxsize and keeps maxbackup old files', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'audit-log-'));
  try {
    const path = join(dir, 'audit.log');
    const backend = createLogBackend({ path, maxSizeMB: 1, maxBackups: 2 });
    // ~300 KiB per batch: the fourth batch starts a new file, and so on.
    for (let batch = 0; batch < 8; batch++) {
      backend.processEvents(Array.from({ length: 3 }, (_, i) => event(batch * 3 + i, 100 * 1024)));
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 2)); // distinct backup time stamps
    }
    await backend.shutdown();
    const files = (await readdir(dir)).sort();
    assert.equal(files.length, 3, files.join(','));
    assert.ok(files.includes('audit.log'));
    const current = parseAuditLog(await readFile(path, 'utf8'));
    assert.equal(current.at(-1)!.auditID, 'id-23');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
