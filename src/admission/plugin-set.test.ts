import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startCapstan } from '../cli/start.ts';
import { parseCommandLine } from '../cli/options.ts';
import { silentLogger } from '../server/log.ts';
import { enabledPlugins, readAdmissionConfigFile, validatePluginFlags } from './plugin-set.ts';

test('the default set in kube order; --enable adds, --disable removes, order fixed by kube', () => {
  const on = enabledPlugins([], []);
  assert.equal(on[0], 'NamespaceLifecycle');
  assert.deepEqual(on.slice(-4), ['MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota']);
  assert.equal(on.length, 20);
  const changed = enabledPlugins(['AlwaysPullImages', 'NamespaceAutoProvision'], ['MutatingAdmissionWebhook']);
  assert.equal(changed[0], 'NamespaceAutoProvision');
  assert.ok(changed.indexOf('AlwaysPullImages') > changed.indexOf('TaintNodesByCondition'));
  assert.ok(!changed.includes('MutatingAdmissionWebhook'));
});

test("unknown and overlapping plugins get kube's messages", () => {
  assert.deepEqual(validatePluginFlags(['Nope'], ['AlsoNope']), ['enable-admission-plugins plugin "Nope" is unknown', 'disable-admission-plugins plugin "AlsoNope" is unknown']);
  assert.deepEqual(validatePluginFlags(['PodSecurity', 'AlwaysDeny'], ['AlwaysDeny', 'PodSecurity']), ['[AlwaysDeny PodSecurity] in enable-admission-plugins and disable-admission-plugins overlapped']);
  assert.deepEqual(validatePluginFlags(['AlwaysPullImages'], ['ResourceQuota']), []);
});

test('the flags reach the options; start-up refuses an unknown plugin', async () => {
  const cmd = parseCommandLine(['--enable-admission-plugins=AlwaysPullImages,EventRateLimit', '--disable-admission-plugins', 'PodSecurity']);
  assert.equal(cmd.kind, 'run');
  if (cmd.kind !== 'run') return;
  assert.deepEqual(cmd.options.enableAdmissionPlugins, ['AlwaysPullImages', 'EventRateLimit']);
  assert.deepEqual(cmd.options.disableAdmissionPlugins, ['PodSecurity']);
  await assert.rejects(startCapstan({ logger: silentLogger, enableAdmissionPlugins: ['Bogus'] }), { name: 'ConfigError', message: 'enable-admission-plugins plugin "Bogus" is unknown' });
});

test('--admission-control-config-file: inline and path configurations', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'capstan-admission-'));
  try {
    await writeFile(join(dir, 'ps.yaml'), 'apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: baseline\n');
    await writeFile(
      join(dir, 'admission.yaml'),
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: ps.yaml\n- name: EventRateLimit\n  configuration:\n    kind: Configuration\n',
    );
    const configs = await readAdmissionConfigFile(join(dir, 'admission.yaml'));
    assert.deepEqual(configs.get('PodSecurity'), { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline' } });
    assert.deepEqual(configs.get('EventRateLimit'), { kind: 'Configuration' });
    await writeFile(join(dir, 'bad.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
    await assert.rejects(readAdmissionConfigFile(join(dir, 'bad.yaml')), /no kind "ConfigMap" is registered for version "v1"/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
