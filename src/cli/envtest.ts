// `capstan --envtest`: the command line controller-runtime's envtest drives as its kube-apiserver binary. It takes
// the flags envtest passes (pkg/internal/testing/controlplane: APIServer.defaultArgs and the cert authenticator's
// --client-ca-file), ignores the ones naming etcd and the ones without a Capstan counterpart, finds the serving
// certificate in --cert-dir as kube-apiserver does (apiserver.crt / apiserver.key), and runs on memory storage in a
// temporary data dir with the test controls on, unless told otherwise.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FlagSpec } from './flags.ts';
import { parseFlags } from './flags.ts';
import { commandFromFlags, FLAGS, type CliCommand } from './options.ts';

const IGNORED_HELP = 'Ignored with --envtest (envtest runs its own etcd; Capstan keeps its own storage, see --storage-backend).';

/** Names of the flags envtest (or a kube-apiserver command line) may pass that --envtest accepts and ignores. */
const IGNORED_NAMES = [
  'etcd-servers', 'etcd-prefix', 'etcd-cafile', 'etcd-certfile', 'etcd-keyfile', 'etcd-servers-overrides', 'etcd-compaction-interval',
  'etcd-count-metric-poll-period', 'etcd-db-metric-poll-interval', 'etcd-healthcheck-timeout', 'etcd-readycheck-timeout', 'storage-media-type',
  'service-cluster-ip-range', 'allow-privileged', 'disable-admission-plugins', 'enable-admission-plugins', 'advertise-address', 'insecure-port',
  'insecure-bind-address',
];

/** Their specs: the command line's own where it has the flag (same value syntax), else a string (allow-privileged: a bool). */
export const ENVTEST_IGNORED_FLAGS: readonly FlagSpec[] = IGNORED_NAMES.map((name): FlagSpec => {
  const own = FLAGS.find((f) => f.name === name);
  const type = own?.type ?? (name === 'allow-privileged' ? 'bool' : name === 'insecure-port' ? 'int' : name.endsWith('-plugins') ? 'stringList' : 'string');
  return { name, type, valueName: own?.valueName ?? (type === 'bool' ? undefined : type === 'int' ? 'int' : type === 'stringList' ? 'strings' : 'string'), help: IGNORED_HELP };
});

const CERT_DIR: FlagSpec = {
  name: 'cert-dir',
  type: 'string',
  valueName: 'string',
  help: 'The directory where the TLS certs are located: apiserver.crt and apiserver.key there serve HTTPS when --tls-cert-file is not given.',
};

export const ENVTEST_FLAGS: readonly FlagSpec[] = [...FLAGS.filter((f) => !IGNORED_NAMES.includes(f.name)), CERT_DIR, ...ENVTEST_IGNORED_FLAGS];

/** True when the command line asks for envtest mode. */
export function wantsEnvtest(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--envtest' || a === '--envtest=true') return true;
  }
  return false;
}

export function parseEnvtestCommandLine(argv: readonly string[]): CliCommand {
  const all = parseFlags(ENVTEST_FLAGS, argv);
  // The ignored flags' values never reach the options (their defaults neither: the command line's own apply).
  const values = { ...all.values };
  for (const name of IGNORED_NAMES) delete values[name];
  const own = parseFlags(FLAGS, []).values;
  for (const name of IGNORED_NAMES) if (name in own) values[name] = own[name];
  const parsed = { values, given: new Set([...all.given].filter((n) => !IGNORED_NAMES.includes(n))), positional: all.positional };
  const command = commandFromFlags(parsed);
  if (command.kind !== 'run') return command;
  const v = parsed.values;
  const options = { ...command.options };
  if (!parsed.given.has('storage-backend')) options.storageBackend = 'memory';
  if (!parsed.given.has('data-dir')) options.dataDir = undefined;
  if (!parsed.given.has('enable-test-controls')) options.enableTestControls = true;
  const certDir = v['cert-dir'] as string | undefined;
  if (certDir && !options.tlsCertFile) {
    const cert = join(certDir, 'apiserver.crt');
    const key = join(certDir, 'apiserver.key');
    if (existsSync(cert) && existsSync(key)) {
      options.tlsCertFile = cert;
      options.tlsPrivateKeyFile = key;
    }
  }
  return { ...command, options };
}
