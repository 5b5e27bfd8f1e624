// kubectl against a real Capstan for three kube 1.31 rules: the mandatory flowcontrol objects keep their fixed spec,
// a ValidatingAdmissionPolicy's paramKind (and a binding's paramRef) needs "get" on what it names, and
// ClusterTrustBundles (certificates.k8s.io/v1alpha1) are validated as kube validates them.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { issueCertificate } from '../../src/server/certificates.ts';
import { startTestServer, until } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('mandatory flowcontrol objects through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('the catch-all flow schema refuses a spec change; its fixed spec stays', async () => {
    const refused = await s.kubectlRefused(['patch', 'flowschema', 'catch-all', '--type=merge', '-p', '{"spec":{"matchingPrecedence":9000}}']);
    assert.match(refused, /^The FlowSchema "catch-all" is invalid: spec: Invalid value: flowcontrol\.FlowSchemaSpec\{PriorityLevelConfiguration:flowcontrol\.PriorityLevelConfigurationReference\{Name:"catch-all"\}, MatchingPrecedence:9000, .*\}: spec of 'catch-all' must equal the fixed value$/);
    assert.equal(await s.kubectlOk(['get', 'flowschema', 'catch-all', '-o', 'jsonpath={.spec.matchingPrecedence}']), '10000');
    // A write of the same spec (a label added) is accepted.
    await s.kubectlOk(['label', 'flowschema', 'catch-all', 'team=ops']);
  });

  test('the catch-all priority level refuses a spec change', async () => {
    assert.equal(
      await s.kubectlRefused(['patch', 'prioritylevelconfiguration', 'catch-all', '--type=merge', '-p', '{"spec":{"limited":{"nominalConcurrencyShares":50}}}']),
      'The PriorityLevelConfiguration "catch-all" is invalid: spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Limited", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000a1b2c0), Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}: spec of \'catch-all\' must equal the fixed value',
    );
  });

  test('the exempt priority level takes a change of spec.exempt and refuses any other', async () => {
    await s.kubectlOk(['patch', 'prioritylevelconfiguration', 'exempt', '--type=merge', '-p', '{"spec":{"exempt":{"nominalConcurrencyShares":7}}}']);
    assert.equal(await s.kubectlOk(['get', 'prioritylevelconfiguration', 'exempt', '-o', 'jsonpath={.spec.exempt.nominalConcurrencyShares}']), '7');
    assert.equal(
      await s.kubectlRefused(['patch', 'prioritylevelconfiguration', 'exempt', '--type=merge', '-p', '{"spec":{"limited":{"nominalConcurrencyShares":5,"limitResponse":{"type":"Reject"}}}}']),
      'The PriorityLevelConfiguration "exempt" is invalid: \n* spec.limited: Forbidden: must be nil if the type is not Limited\n' +
        '* spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Exempt", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000a1b2c0), Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(0xc000a1b2c0)}: ' +
        "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value",
    );
  });
});

const RBAC = 'rbac.authorization.k8s.io/v1';
const ADMISSION = 'admissionregistration.k8s.io/v1';
const TOKENS = { writer: 'writer-token-0123456789', binder: 'binder-token-0123456789' };

const clusterRole = (name: string, rules: unknown[]) => ({ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name }, rules });
const bindingTo = (kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, roleKind: string, role: string, user: string, namespace?: string) => ({
  apiVersion: RBAC,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
});
const policy = (name: string, paramKind: { apiVersion: string; kind: string }) => ({
  apiVersion: ADMISSION,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: {
    paramKind,
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
    validations: [{ expression: 'true' }],
  },
});
const policyBinding = (name: string, policyName: string) => ({
  apiVersion: ADMISSION,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName, paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' }, validationActions: ['Deny'] },
});

describe('paramKind and paramRef authorization through kubectl (RBAC)', () => {
  let s: TestServer;
  let dir: string;
  const kc: Record<string, string> = {};
  const as = (user: keyof typeof TOKENS, args: string[], input?: unknown) => ({ args, opts: { kubeconfig: kc[user], input: input === undefined ? undefined : JSON.stringify(input) } });
  const refusedAs = (user: keyof typeof TOKENS, args: string[], input?: unknown) => {
    const r = as(user, args, input);
    return s.kubectlRefused(r.args, r.opts);
  };
  const okAs = (user: keyof typeof TOKENS, args: string[], input?: unknown) => {
    const r = as(user, args, input);
    return s.kubectlOk(r.args, r.opts);
  };
  const mayGetConfigMaps = async (user: keyof typeof TOKENS, namespace: string) =>
    (await s.request(`/api/v1/namespaces/${namespace}/configmaps/limits`, { token: TOKENS[user] })).status !== 403;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-param-authz-'));
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, `${TOKENS.writer},writer,u-writer\n${TOKENS.binder},binder,u-binder\n`);
    s = await startTestServer({ authorizationMode: ['RBAC'], tokenAuthFile: tokenFile });
    for (const [name, token] of Object.entries(TOKENS)) kc[name] = await s.writeKubeconfig(name, { token });
    const writeRole = clusterRole('policy-writer', [{ apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'], verbs: ['*'] }]);
    for (const obj of [
      writeRole,
      bindingTo('ClusterRoleBinding', 'writer-writes', 'ClusterRole', 'policy-writer', 'writer'),
      bindingTo('ClusterRoleBinding', 'binder-writes', 'ClusterRole', 'policy-writer', 'binder'),
    ]) {
      await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(obj) });
    }
    await until('writer may list policies', async () => (await s.request('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { token: TOKENS.writer })).status === 200);
  });
  after(async () => {
    await s?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('a policy whose paramKind the user may not get is refused, for a known and for an unknown kind', async () => {
    assert.equal(
      await refusedAs('writer', ['create', '-f', '-'], policy('limits', { apiVersion: 'v1', kind: 'ConfigMap' })),
      'The ValidatingAdmissionPolicy "limits" is invalid: spec.paramKind: Forbidden: user &{writer u-writer [system:authenticated] map[]} must have "get" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)',
    );
    assert.equal(
      await refusedAs('writer', ['create', '-f', '-'], policy('widgets', { apiVersion: 'example.com/v1', kind: 'Widget' })),
      'The ValidatingAdmissionPolicy "widgets" is invalid: spec.paramKind: Forbidden: user &{writer u-writer [system:authenticated] map[]} must have "get" permission on all objects of the referenced paramKind (kind=Widget, apiVersion=example.com/v1)',
    );
    // system:masters is not asked.
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(policy('widgets', { apiVersion: 'example.com/v1', kind: 'Widget' })) });
  });

  test('with get on configmaps the policy is accepted; an update keeping its paramKind is not checked again', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(clusterRole('configmap-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }])) });
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(bindingTo('ClusterRoleBinding', 'writer-reads', 'ClusterRole', 'configmap-reader', 'writer')) });
    await until('writer may get configmaps', () => mayGetConfigMaps('writer', 'default'));
    await okAs('writer', ['create', '-f', '-'], policy('limits', { apiVersion: 'v1', kind: 'ConfigMap' }));
    // binder may not get configmaps, but a label leaves the paramKind as it was.
    await okAs('binder', ['label', 'validatingadmissionpolicy', 'limits', 'team=ops']);
    assert.equal(
      await refusedAs('binder', ['patch', 'validatingadmissionpolicy', 'widgets', '--type=merge', '-p', '{"spec":{"paramKind":{"apiVersion":"v1","kind":"Secret"}}}']),
      'The ValidatingAdmissionPolicy "widgets" is invalid: spec.paramKind: Forbidden: user &{binder u-binder [system:authenticated] map[]} must have "get" permission on all objects of the referenced paramKind (kind=Secret, apiVersion=v1)',
    );
  });

  test('a binding whose paramRef the user may not get is refused until it may get that object', async () => {
    assert.equal(
      await refusedAs('binder', ['create', '-f', '-'], policyBinding('limits-binding', 'limits')),
      'The ValidatingAdmissionPolicyBinding "limits-binding" is invalid: spec.paramRef: Forbidden: user &{binder u-binder [system:authenticated] map[]} does not have "get" permission on the object referenced by paramRef',
    );
    // A Role in the paramRef's namespace for that one name is enough.
    const role = { apiVersion: RBAC, kind: 'Role', metadata: { name: 'limits-reader', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['limits'], verbs: ['get'] }] };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(role) });
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(bindingTo('RoleBinding', 'binder-reads-limits', 'Role', 'limits-reader', 'binder', 'default')) });
    await until('binder may get the limits configmap', () => mayGetConfigMaps('binder', 'default'));
    await okAs('binder', ['create', '-f', '-'], policyBinding('limits-binding', 'limits'));
  });
});

describe('ClusterTrustBundles through kubectl (certificates.k8s.io/v1alpha1 with the ClusterTrustBundle gate)', () => {
  let s: TestServer;
  let ca = '';
  let leaf = '';
  const ctb = (name: string, signerName: string | undefined, trustBundle: string) =>
    JSON.stringify({ apiVersion: 'certificates.k8s.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { ...(signerName ? { signerName } : {}), trustBundle } });
  const DEPRECATED = 'Warning: certificates.k8s.io/v1alpha1 ClusterTrustBundle is deprecated in v1.30+, unavailable in v1.33+\n';
  /** kubectl's refusal, after the version's deprecation warning every request to it carries. */
  const refused = async (args: string[], input?: string) => {
    const stderr = await s.kubectlRefused(args, { input });
    assert.ok(stderr.startsWith(DEPRECATED), stderr);
    return stderr.slice(DEPRECATED.length);
  };

  before(async () => {
    s = await startTestServer({ runtimeConfig: 'certificates.k8s.io/v1alpha1=true', featureGates: { ClusterTrustBundle: true } });
    const period = { notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) };
    const root = await issueCertificate({ subject: { commonName: 'root' }, isCa: true, ...period });
    ca = root.certPem;
    leaf = (await issueCertificate({ subject: { commonName: 'leaf' }, isCa: false, usage: 'client', ...period }, root)).certPem;
  });
  after(async () => {
    await s?.close();
  });

  test('not served without the ClusterTrustBundle gate, even with the version enabled', async () => {
    const ungated = await startTestServer({ runtimeConfig: 'certificates.k8s.io/v1alpha1=true' });
    try {
      assert.match(await ungated.kubectlRefused(['get', 'clustertrustbundles']), /the server doesn't have a resource type "clustertrustbundles"/);
    } finally {
      await ungated.close();
    }
  });

  test('a bundle named for its signer with CA certificates is accepted; kube refuses a wrong name and a leaf certificate', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: ctb('example.com:signer:roots', 'example.com/signer', ca) });
    assert.match(await s.kubectlOk(['get', 'clustertrustbundles']), /^NAME\s+SIGNERNAME\nexample\.com:signer:roots\s+example\.com\/signer\n$/);
    assert.equal(
      await refused(['create', '-f', '-'], ctb('roots', 'example.com/signer', ca)),
      'The ClusterTrustBundle "roots" is invalid: metadata.name: Invalid value: "roots": ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:',
    );
    assert.equal(
      await refused(['create', '-f', '-'], ctb('leaves', undefined, leaf)),
      'The ClusterTrustBundle "leaves" is invalid: spec.trustBundle: Invalid value: "<value omitted>": entry 0 does not have the CA bit set',
    );
  });

  test('signerName is immutable', async () => {
    assert.equal(
      await refused(['patch', 'clustertrustbundle', 'example.com:signer:roots', '--type=merge', '-p', '{"spec":{"signerName":"example.com/other"}}']),
      'The ClusterTrustBundle "example.com:signer:roots" is invalid: \n' +
        '* metadata.name: Invalid value: "example.com:signer:roots": ClusterTrustBundle for signerName example.com/other must be named with prefix example.com:other:\n' +
        '* spec.signerName: Invalid value: "example.com/other": field is immutable',
    );
  });
});
