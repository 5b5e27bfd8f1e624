// kubectl cp into and out of containers on simulated nodes: the files a copy brings in are kept for that run of the
// container and come back out, over WebSocket (kubectl's default) and SPDY, with GNU tar's answers when a path is
// missing; a new container starts without them.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers.ts';

describe('kubectl cp (simulated cluster)', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20 } });
    dir = mkdtempSync(join(tmpdir(), 'capstan-cp-'));
    mkdirSync(join(dir, 'site/assets'), { recursive: true });
    writeFileSync(join(dir, 'site/index.html'), '<h1>hello</h1>\n');
    writeFileSync(join(dir, 'site/assets/logo.bin'), Buffer.from([0, 1, 2, 0xfe, 0xff]));
    writeFileSync(join(dir, 'big.bin'), Buffer.alloc(300 * 1024, 0x5a));
    await s.kubectlOk(['run', 'web', '--image=nginx']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/web', '--timeout=30s']);
  });
  after(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cp = (args: string[], env?: Record<string, string>) => s.kubectl(['cp', ...args], { env });
  const local = (path: string) => join(dir, path);

  test('a file copied in is read back by kubectl exec and copied out, over WebSocket and over SPDY', async () => {
    assert.deepEqual(await cp([local('site/index.html'), 'default/web:/tmp/index.html']), { code: 0, stdout: '', stderr: '' });
    assert.equal(await s.kubectlOk(['exec', 'web', '--', 'cat', '/tmp/index.html']), '<h1>hello</h1>\n');
    assert.equal((await s.kubectl(['exec', 'web', '--', 'test', '-f', '/tmp/index.html'])).code, 0);
    assert.equal((await s.kubectl(['exec', 'web', '--', 'test', '-d', '/tmp/index.html'])).code, 1);
    const out = await cp(['default/web:/tmp/index.html', local('copied.html')]);
    assert.equal(out.code, 0);
    assert.equal(readFileSync(local('copied.html'), 'utf8'), '<h1>hello</h1>\n');
    // SPDY (kubectl's executor with WebSockets turned off), a larger file, into a directory that exists.
    const spdy = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
    assert.equal((await cp(['--no-preserve', local('big.bin'), 'web:/tmp/'], spdy)).code, 0);
    assert.equal((await cp(['web:/tmp/big.bin', local('big-back.bin')], spdy)).code, 0);
    assert.deepEqual(readFileSync(local('big-back.bin')), readFileSync(local('big.bin')));
  });

  test('a directory copied in keeps its tree, binary files included, and comes back out whole', async () => {
    // /srv/site does not exist: the copy makes it (kubectl's `test -d` says it is no directory).
    assert.equal((await cp([local('site'), 'web:/srv/site'])).code, 0);
    assert.equal((await s.kubectl(['exec', 'web', '--', 'test', '-d', '/srv/site/assets'])).code, 0);
    assert.equal((await cp(['web:/srv/site', local('site-back')])).code, 0);
    assert.deepEqual(readdirSync(local('site-back'), { recursive: true }).map(String).sort(), ['assets', 'assets/logo.bin', 'index.html']);
    assert.deepEqual([...readFileSync(local('site-back/assets/logo.bin'))], [0, 1, 2, 0xfe, 0xff]);
    assert.equal(readFileSync(local('site-back/index.html'), 'utf8'), '<h1>hello</h1>\n');
  });

  test("a missing path: GNU tar's messages on kubectl's output and no file written; a new container has none of the copies", async () => {
    const missing = await cp(['web:/nope', local('gone')]);
    assert.equal(missing.stdout, "tar: Removing leading `/' from member names\ntar: /nope: Cannot stat: No such file or directory\ntar: Exiting with failure status due to previous errors\n");
    assert.equal(existsSync(local('gone')), false);
    const into = await cp([local('site/index.html'), 'web:/missing/dir/index.html']);
    assert.deepEqual(into, { code: 2, stdout: '', stderr: 'tar: /missing/dir: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\ncommand terminated with exit code 2\n' });
    // A new container (the pod made again) starts from the image.
    await s.kubectlOk(['run', 'scratch', '--image=busybox', '--', 'sleep', 'infinity']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/scratch', '--timeout=30s']);
    assert.equal((await cp([local('site/index.html'), 'scratch:/tmp/index.html'])).code, 0);
    assert.equal((await s.kubectl(['exec', 'scratch', '--', 'test', '-e', '/tmp/index.html'])).code, 0);
    await s.kubectlOk(['delete', 'pod', 'scratch', '--wait']);
    await s.kubectlOk(['run', 'scratch', '--image=busybox', '--', 'sleep', 'infinity']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/scratch', '--timeout=30s']);
    assert.equal((await s.kubectl(['exec', 'scratch', '--', 'test', '-e', '/tmp/index.html'])).code, 1);
  });
});
