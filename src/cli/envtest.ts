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

/** Flags envtest (or a kube-apiserver command line) may pass that Capstan accepts and ignores. */
export const ENVTEST_IGNORED_FLAGS: readonly FlagSpec[] = [
  ...['etcd-servers', 'etcd-prefix', 'etcd-cafile', 'etcd-certfile', 'etcd-keyfile', 'etcd-servers-overrides', 'etcd-compaction-interval', 'etcd-count-metric-poll-period', 'etcd-db-metric-poll-interval', 'etcd-healthcheck-timeout', 'etcd-readycheck-timeout', 'storage-media-type'].map(
    (name): FlagSpec => ({ name, type: 'string', valueName: 'string', help: 'Ignored: Capstan keeps its own storage (--storage-backend).' }),
  ),
  { name: 'service-cluster-ip-range', type: 'string', valueName: 'string', help: 'Ignored: Services get addresses from 10.96.0.0/12.' },
  { name: 'allow-privileged', type: 'bool', help: 'Ignored: privileged containers are always allowed.' },
  { name: 'disable-admission-plugins', type: 'stringList', valueName: 'strings', help: 'Ignored.' },
  { name: 'enable-admission-plugins', type: 'stringList', valueName: 'strings', help: 'Ignored.' },
  { name: 'insecure-port', type: 'int', valueName: 'int', help: 'Ignored (removed in kube-apiserver 1.24; envtest passes 0 to older servers).' },
  { name: 'insecure-bind-address', type: 'string', valueName: 'ip', help: 'Ignored.' },
];

const CERT_DIR: FlagSpec = {
  name: 'cert-dir',
  type: 'string',
  valueName: 'string',
  help: 'The directory where the TLS certs are located: apiserver.crt and apiserver.key there serve HTTPS when --tls-cert-file is not given.',
};

// Flags Capstan has for real (the etcd ones, the admission plugin lists) keep their meaning; the rest are ignored.
const known = new Set(FLAGS.map((f) => f.name));
export const ENVTEST_FLAGS: readonly FlagSpec[] = [...FLAGS, CERT_DIR, ...ENVTEST_IGNORED_FLAGS.filter((f) => !known.has(f.name))];

/** True when the command line asks for envtest mode. */
export function wantsEnvtest(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--envtest' || a === '--envtest=true') return true;
  }
  return false;
}

export function parseEnvtestCommandLine(argv: readonly string[]): CliCommand {
  const parsed = parseFlags(ENVTEST_FLAGS, argv);
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
