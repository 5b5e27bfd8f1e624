import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createContainerFiles, readsStdin } from './container-files.ts';
import { readTar, writeTar } from './tar.ts';
import type { KubeObject } from '../../registry/types.ts';

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', volumeMounts: [{ mountPath: '/var/lib/data/' }] }] } };
const none = Buffer.alloc(0);

test('the tar forms kubectl cp runs are recognized; a tar extraction from stdin is the one that reads it', () => {
  assert.equal(readsStdin(['tar', '-xmf', '-', '-C', '/tmp']), true);
  assert.equal(readsStdin(['tar', 'xf', '-']), true);
  assert.equal(readsStdin(['tar', '--no-same-permissions', '--no-same-owner', '-xmf', '-', '-C', '/tmp']), true);
  assert.equal(readsStdin(['tar', 'cf', '-', '/tmp/x']), false);
  assert.equal(readsStdin(['tar', 'xf', '/archive.tar']), false);
  assert.equal(readsStdin(['sh', '-c', 'tar xf -']), false);
  const files = createContainerFiles();
  assert.equal(files.run('run-1', pod, 'c', ['tar', '--help'], none), undefined);
  assert.equal(files.run('run-1', pod, 'c', ['ls', '/'], none), undefined);
});

test("test -d knows an image's usual directories, the container's mounts and what copies made; -e and -f the rest", () => {
  const files = createContainerFiles();
  const code = (...command: string[]) => files.run('run-1', pod, 'c', command, none)?.exitCode;
  assert.deepEqual([code('test', '-d', '/tmp'), code('test', '-d', '/var/lib'), code('test', '-d', '/var/lib/data'), code('test', '-d', '/app')], [0, 0, 0, 1]);
  const archive = writeTar([{ name: 'app/conf/settings.yaml', type: 'file', mode: 0o600, mtime: 1, data: Buffer.from('a: 1\n') }]);
  assert.deepEqual(files.run('run-1', pod, 'c', ['tar', '-xmf', '-', '-C', '/'], archive), { stdout: '', stderr: '', exitCode: 0 });
  assert.deepEqual([code('test', '-d', '/app'), code('test', '-d', '/app/conf'), code('test', '-f', '/app/conf/settings.yaml'), code('test', '-e', '/app/nope')], [0, 0, 0, 1]);
  assert.equal(String(files.run('run-1', pod, 'c', ['cat', '/app/conf/settings.yaml'], none)?.stdout), 'a: 1\n');
  // Another run of the container (a new container ID) has none of it.
  assert.equal(files.run('run-2', pod, 'c', ['test', '-e', '/app/conf/settings.yaml'], none)?.exitCode, 1);
  assert.equal(files.run('run-2', pod, 'c', ['cat', '/app/conf/settings.yaml'], none), undefined);
});

test('tar cf - lists a directory with the directories its files imply; a copy replaces what it names', () => {
  const files = createContainerFiles();
  const put = (dir: string, entries: Parameters<typeof writeTar>[0]) => files.run('r', pod, 'c', ['tar', 'xmf', '-', '-C', dir], writeTar(entries));
  put('/srv', [{ name: 'site/a/b/deep.txt', type: 'file', mode: 0o644, mtime: 5, data: Buffer.from('deep') }, { name: 'site/top.txt', type: 'file', mode: 0o644, mtime: 5, data: Buffer.from('top') }]);
  const out = files.run('r', pod, 'c', ['tar', 'cf', '-', '/srv/site'], none)!;
  assert.equal(out.stderr, "tar: Removing leading `/' from member names\n");
  assert.deepEqual(readTar(Buffer.from(out.stdout)).map((e) => `${e.type} ${e.name}`), ['dir srv/site', 'dir srv/site/a', 'dir srv/site/a/b', 'file srv/site/a/b/deep.txt', 'file srv/site/top.txt']);
  put('/srv', [{ name: 'site', type: 'file', mode: 0o644, mtime: 6, data: Buffer.from('now a file') }]);
  assert.deepEqual(readTar(Buffer.from(files.run('r', pod, 'c', ['tar', 'cf', '-', 'srv/site'], none)!.stdout)).map((e) => [e.name, e.data.toString()]), [['srv/site', 'now a file']]);
  assert.deepEqual(files.run('r', pod, 'c', ['tar', 'xmf', '-', '-C', '/nowhere'], writeTar([])), { stdout: '', stderr: 'tar: /nowhere: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n', exitCode: 2 });
  assert.deepEqual(files.run('r', pod, 'c', ['tar', 'xmf', '-'], Buffer.alloc(512, 1)), { stdout: '', stderr: 'tar: This does not look like a tar archive\ntar: Exiting with failure status due to previous errors\n', exitCode: 2 });
});
