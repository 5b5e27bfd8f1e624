import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../server/log.ts';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, completeOptions, prepareDataDir } from './start.ts';

function collect(): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, log: createLogger({ verbosity: 0, write: (l) => lines.push(l) }) };
}

test('library defaults: memory, free port, loopback, AlwaysAllow with anonymous off and no warning', () => {
  const { lines, log } = collect();
  const c = completeOptions({}, log);
  assert.equal(c.backend, 'memory');
  assert.equal(c.port, 0);
  assert.equal(c.bindAddress, '127.0.0.1');
  assert.deepEqual(c.modes, ['AlwaysAllow']);
  assert.equal(c.anonymous, false);
  assert.equal(c.historyWindowSeconds, 300);
  assert.equal(c.minRequestTimeoutSeconds, 1800);
  assert.equal(c.featureGates.WatchList, false);
  assert.deepEqual(lines, []);
});

test('anonymous asked for with AlwaysAllow is reset with kube\'s warning; kept with other modes', () => {
  const { lines, log } = collect();
  assert.equal(completeOptions({ anonymousAuth: true }, log).anonymous, false);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /"level":"warning","msg":"AnonymousAuth is not allowed with the AlwaysAllow authorizer\. Resetting AnonymousAuth to false\. You should use a different authorizer"/);
  assert.equal(completeOptions({ authorizationMode: ['AlwaysDeny'] }, log).anonymous, true);
  assert.equal(completeOptions({ authorizationMode: ['AlwaysDeny'], anonymousAuth: false }, log).anonymous, false);
});

test('invalid options are ConfigErrors', () => {
  const { log } = collect();
  const bad: Array<[Parameters<typeof completeOptions>[0], string]> = [
    [{ port: 70000 }, '--secure-port 70000 must be between 0 and 65535, inclusive (0 picks a free port)'],
    [{ plainHttpPort: -1 }, '--plain-http-port -1 must be between 0 and 65535, inclusive (0 picks a free port)'],
    [{ historyWindowSeconds: -5 }, '--history-window can not be negative value'],
    [{ minRequestTimeoutSeconds: -1 }, '--min-request-timeout can not be negative value'],
    [{ requestTimeoutSeconds: -1 }, "--request-timeout can not be negative value"],
    [{ http2MaxStreamsPerConnection: -1 }, "--http2-max-streams-per-connection can not be negative value"],
    [{ authorizationMode: ['AlwaysAllow', 'Nope'] }, 'authorization-mode "Nope" is not a valid mode'],
    [{ authorizationMode: ['Nope', 'Nope2'] }, '[authorization-mode "Nope" is not a valid mode, authorization-mode "Nope2" is not a valid mode]'],
    [{ storageBackend: 'etcd' as 'memory' }, "--storage-backend invalid, allowed values: sqlite, memory, etcd3. If not specified, it will default to 'sqlite'"],
    [{ storageBackend: 'etcd3' }, '--etcd-servers must be specified'],
  ];
  for (const [options, message] of bad) assert.throws(() => completeOptions(options, log), (e: unknown) => e instanceof ConfigError && e.message === message, message);
});

test('an existing world-writable data dir of ours is tightened to 0700, with a warning', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'capstan-perm-'));
  try {
    await chmod(dir, 0o777);
    const { lines, log } = collect();
    assert.deepEqual(await prepareDataDir(dir, log), { dir, temporary: false });
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /"level":"warning","msg":"data directory was accessible to other users; its mode is now 0700".*"mode":"0777"/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a shared (sticky, world-writable) data dir is refused, never tightened', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'capstan-shared-'));
  try {
    await chmod(dir, 0o1777);
    const { log } = collect();
    await assert.rejects(prepareDataDir(dir, log), (e: unknown) => e instanceof ConfigError && e.message === `--data-dir ${dir} is writable by other users (mode 1777) and shared or not owned by this user; use a directory of your own`);
    assert.equal((await stat(dir)).mode & 0o7777, 0o1777);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
