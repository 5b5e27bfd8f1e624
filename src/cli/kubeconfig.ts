// The admin kubeconfig: one cluster, user and context, all named "capstan", credentials embedded.
// Written by hand rather than through a YAML library: every value is a URL, a name or base64.

import { isIP } from 'node:net';

export interface KubeconfigInput {
  readonly server: string;
  readonly caPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
  readonly name?: string;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

export function renderKubeconfig(input: KubeconfigInput): string {
  const name = input.name ?? 'capstan';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${b64(input.caPem)}`,
    `    server: ${input.server}`,
    `  name: ${name}`,
    'contexts:',
    '- context:',
    `    cluster: ${name}`,
    `    user: ${name}`,
    `  name: ${name}`,
    `current-context: ${name}`,
    'preferences: {}',
    'users:',
    `- name: ${name}`,
    '  user:',
    `    client-certificate-data: ${b64(input.clientCertPem)}`,
    `    client-key-data: ${b64(input.clientKeyPem)}`,
    '',
  ].join('\n');
}

function isLoopback(address: string): boolean {
  if (isIP(address) === 4) return address.startsWith('127.');
  if (isIP(address) === 6) return address === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(address);
  return false;
}

/** The host clients should dial: the bind address when it is a loopback address, else 127.0.0.1. */
export function clientHost(bindAddress: string): string {
  if (!isLoopback(bindAddress)) return '127.0.0.1';
  return isIP(bindAddress) === 6 ? `[${bindAddress}]` : bindAddress;
}

export function serverUrl(bindAddress: string, port: number): string {
  return `https://${clientHost(bindAddress)}:${port}`;
}
