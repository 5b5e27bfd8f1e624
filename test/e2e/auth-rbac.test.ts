// End to end: RBAC as a real cluster runs it (--authorization-mode Node,RBAC): the default policy, bindings made
// with kubectl, identity x endpoint x verb -> 200/401/403 with kube's messages, can-i, escalation prevention,
// roleRef immutability, ClusterRole aggregation, the review APIs answering from the authorizer chain.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from './helpers.ts';
import { startTestServer, until } from './helpers.ts';

/** Polls `check` until it holds (RBAC reads its policy through informers: a new binding counts a moment later). */

const RBAC = 'rbac.authorization.k8s.io';

function roleBinding(namespace: string, name: string, role: string, subject: { kind: 'User' | 'Group'; name: string }, roleKind = 'ClusterRole') {
  return { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name, namespace }, roleRef: { apiGroup: RBAC, kind: roleKind, name: role }, subjects: [{ apiGroup: RBAC, ...subject }] };
}

// kubectl's `create rolebinding --user` and `create role` send Protobuf bodies, which Capstan does not read yet:
// objects are created from JSON here.
const TOKENS = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789', carol: 'carol-token-0123456789', node: 'node-token-0123456789' };

describe('RBAC (Node,RBAC)', () => {
  let server: TestServer;
  let dir: string;
  const kc: Record<string, string> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-rbac-'));
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, `${TOKENS.alice},alice,u-alice\n${TOKENS.bob},bob,u-bob,"dev"\n${TOKENS.carol},carol,u-carol\n${TOKENS.node},system:node:n1,u-n1,"system:nodes"\n`);
    server = await startTestServer({ authorizationMode: ['Node', 'RBAC'], tokenAuthFile: tokenFile });
    for (const [name, token] of Object.entries(TOKENS)) kc[name] = await server.writeKubeconfig(name, { token });
    kc.anonymous = await server.writeKubeconfig('anonymous', {});
    await server.kubectlOk(['create', 'namespace', 'team']);
    await server.kubectlOk(['create', 'namespace', 'other']);
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(roleBinding('team', 'dev-edit', 'edit', { kind: 'Group', name: 'dev' })) });
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(roleBinding('team', 'carol-admin', 'admin', { kind: 'User', name: 'carol' })) });
    await until('bob may list pods in team', async () => (await server.request('/api/v1/namespaces/team/pods', { token: TOKENS.bob })).status === 200);
    await until('carol may list roles in team', async () => (await server.request('/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', { token: TOKENS.carol })).status === 200);
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the default ClusterRoles and ClusterRoleBindings exist, labelled and annotated as kube makes them', async () => {
    const roles = JSON.parse(await server.kubectlOk(['get', 'clusterroles', '-o', 'json'])) as { items: { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; rules?: unknown[] }[] };
    const names = roles.items.map((r) => r.metadata.name);
    for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:monitoring', 'system:auth-delegator', 'system:node', 'system:node-proxier', 'system:controller:namespace-controller']) {
      assert.ok(names.includes(n), n);
    }
    const view = roles.items.find((r) => r.metadata.name === 'view')!;
    assert.equal(view.metadata.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults');
    assert.equal(view.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true');
    // Aggregated from system:aggregate-to-view.
    assert.deepEqual((view.rules as { resources?: string[] }[])[0].resources?.slice(0, 2), ['configmaps', 'endpoints']);
    const crb = JSON.parse(await server.kubectlOk(['get', 'clusterrolebinding', 'cluster-admin', '-o', 'json'])) as { subjects: unknown[] };
    assert.deepEqual(crb.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
  });

  // identity, method, path, expected status, expected message (403s).
  const cases: [string, string, string, number, string?][] = [
    ['admin', 'GET', '/api/v1/namespaces/team/pods', 200],
    ['bob', 'GET', '/api/v1/namespaces/team/pods', 200],
    ['bob', 'GET', '/api/v1/namespaces/team/secrets', 200],
    ['bob', 'GET', '/api/v1/namespaces/other/pods', 403, 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "other"'],
    ['bob', 'DELETE', '/api/v1/namespaces/team', 403, 'namespaces "team" is forbidden: User "bob" cannot delete resource "namespaces" in API group "" in the namespace "team"'],
    ['bob', 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', 403, 'clusterroles.rbac.authorization.k8s.io is forbidden: User "bob" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope'],
    ['bob', 'GET', '/api/v1/namespaces/team/pods/x/log', 404],
    ['alice', 'GET', '/api/v1/namespaces/team/pods', 403, 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "team"'],
    ['alice', 'GET', '/api/v1/namespaces/team/configmaps/cm1', 403, 'configmaps "cm1" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "team"'],
    ['alice', 'GET', '/api', 200],
    ['alice', 'GET', '/apis/apps/v1', 200],
    ['alice', 'GET', '/version', 200],
    ['alice', 'GET', '/metrics', 403, 'forbidden: User "alice" cannot get path "/metrics"'],
    ['anonymous', 'GET', '/version', 200],
    ['anonymous', 'GET', '/healthz', 200],
    ['anonymous', 'GET', '/api', 403, 'forbidden: User "system:anonymous" cannot get path "/api"'],
    ['anonymous', 'GET', '/api/v1/namespaces', 403, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope'],
    ['wrong-token', 'GET', '/api/v1/namespaces', 401, 'Unauthorized'],
    ['wrong-token', 'GET', '/version', 401, 'Unauthorized'],
  ];
  for (const [who, method, path, status, message] of cases) {
    test(`${who} ${method} ${path} -> ${status}`, async () => {
      const opts =
        who === 'admin'
          ? { clientCert: server.clientCert, clientKey: server.clientKey }
          : who === 'anonymous'
            ? {}
            : { token: who === 'wrong-token' ? 'not-a-token' : TOKENS[who as keyof typeof TOKENS] };
      const r = await server.request(path, { method, ...opts });
      assert.equal(r.status, status, r.body);
      if (message) {
        const body = JSON.parse(r.body) as { kind: string; status: string; message: string; reason: string };
        assert.equal(body.message, message);
        assert.equal(body.reason, status === 401 ? 'Unauthorized' : 'Forbidden');
      }
    });
  }

  test('writes: bob (edit) creates a ConfigMap in team, alice may not', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made-by-bob' } });
    const ok = await server.request('/api/v1/namespaces/team/configmaps', { method: 'POST', token: TOKENS.bob, body, headers: { 'content-type': 'application/json' } });
    assert.equal(ok.status, 201, ok.body);
    const no = await server.request('/api/v1/namespaces/team/configmaps', { method: 'POST', token: TOKENS.alice, body, headers: { 'content-type': 'application/json' } });
    assert.equal(no.status, 403);
    assert.equal(JSON.parse(no.body).message, 'configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"');
  });

  test('decisions follow the policy as it changes: resourceNames allow only the objects named, edits and deletions count', async () => {
    for (const name of ['named', 'unnamed']) await server.kubectlOk(['create', 'configmap', name, '-n', 'other']);
    const get = async (name: string) => (await server.request(`/api/v1/namespaces/other/configmaps/${name}`, { token: TOKENS.alice })).status;
    const role = (resourceNames?: string[]) => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'cm-reader', namespace: 'other' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], ...(resourceNames ? { resourceNames } : {}) }] });
    const statuses = async () => [await get('named'), await get('unnamed'), await get('named'), await get('unnamed')];
    assert.deepEqual(await statuses(), [403, 403, 403, 403]);
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(role(['named'])) });
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(roleBinding('other', 'alice-cm-reader', 'cm-reader', { kind: 'User', name: 'alice' }, 'Role')) });
    await until('alice may get the named ConfigMap', async () => ((await get('named')) === 200 ? true : undefined));
    // Asked twice each: a decision a rule's resourceNames made holds for that name only.
    assert.deepEqual(await statuses(), [200, 403, 200, 403]);
    await server.kubectlOk(['replace', '-f', '-'], { input: JSON.stringify(role()) });
    await until('alice may get every ConfigMap', async () => ((await get('unnamed')) === 200 ? true : undefined));
    assert.deepEqual(await statuses(), [200, 200, 200, 200]);
    await server.kubectlOk(['replace', '-f', '-'], { input: JSON.stringify(role(['unnamed'])) });
    await until('alice may no longer get the named ConfigMap', async () => ((await get('named')) === 403 ? true : undefined));
    assert.deepEqual(await statuses(), [403, 200, 403, 200]);
    await server.kubectlOk(['delete', 'rolebinding', 'alice-cm-reader', '-n', 'other']);
    await until('alice may get no ConfigMap', async () => ((await get('unnamed')) === 403 ? true : undefined));
    assert.deepEqual(await statuses(), [403, 403, 403, 403]);
  });

  test('kubectl auth can-i, can-i --list and whoami', async () => {
    assert.equal((await server.kubectl(['auth', 'can-i', 'list', 'pods', '-n', 'team'], { kubeconfig: kc.bob })).stdout.trim(), 'yes');
    const no = await server.kubectl(['auth', 'can-i', 'list', 'pods', '-n', 'other'], { kubeconfig: kc.bob });
    assert.deepEqual([no.code, no.stdout.trim()], [1, 'no']);
    assert.equal((await server.kubectl(['auth', 'can-i', 'delete', 'nodes'], { kubeconfig: kc.alice })).stdout.trim(), 'no');
    assert.equal((await server.kubectl(['auth', 'can-i', 'get', '/version'], { kubeconfig: kc.alice })).stdout.trim(), 'yes');
    assert.equal((await server.kubectl(['auth', 'can-i', '*', '*'])).stdout.trim(), 'yes');
    const listed = await server.kubectl(['auth', 'can-i', '--list', '-n', 'team'], { kubeconfig: kc.bob });
    // Node and RBAC both enumerate bob's rules: the list is complete, no warning.
    assert.deepEqual([listed.code, listed.stderr], [0, '']);
    const list = listed.stdout;
    assert.match(list, /^pods\s+\[\]\s+\[\]\s+\[create delete deletecollection patch update get list watch\]$/m);
    assert.match(list, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    assert.match(list, /^\s+\[\/api\/\*\]\s+\[\]\s+\[get\]$/m);
    // A node's permissions are not enumerated by the Node authorizer (kube's NodeAuthorizer.RulesFor).
    const node = await server.kubectl(['auth', 'can-i', '--list', '-n', 'team'], { kubeconfig: kc.node });
    assert.equal(node.code, 0, node.stderr);
    assert.equal(node.stderr, 'Warning: the list may be incomplete: node authorizer does not support user rule resolution\n');
    assert.match(node.stdout, /^selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    const whoami = JSON.parse(await server.kubectlOk(['auth', 'whoami', '-o', 'json'], { kubeconfig: kc.bob })) as { status: { userInfo: unknown } };
    assert.deepEqual(whoami.status.userInfo, { username: 'bob', uid: 'u-bob', groups: ['dev', 'system:authenticated'] });
  });

  test('SubjectAccessReview answers from the authorizer chain, with RBAC\'s reason', async () => {
    const sar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'bob', groups: ['dev'], resourceAttributes: { namespace: 'team', verb: 'get', resource: 'pods' } } };
    const out = JSON.parse(await server.kubectlOk(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(sar) })) as { status: unknown };
    assert.deepEqual(out.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "dev-edit/team" of ClusterRole "edit" to Group "dev"' });
    const denied = { ...sar, spec: { ...sar.spec, resourceAttributes: { namespace: 'other', verb: 'get', resource: 'pods' } } };
    const out2 = JSON.parse(await server.kubectlOk(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(denied) })) as { status: unknown };
    assert.deepEqual(out2.status, { allowed: false });
  });

  test('escalation: a namespace admin may not bind or grant what it does not hold, with kube\'s message', async () => {
    const post = (path: string, obj: unknown) =>
      server.request(path, { method: 'POST', token: TOKENS.carol, body: JSON.stringify(obj), headers: { 'content-type': 'application/json' } });
    const bindings = `/apis/${RBAC}/v1/namespaces/team/rolebindings`;
    const roles = `/apis/${RBAC}/v1/namespaces/team/roles`;
    const grab = await post(bindings, roleBinding('team', 'grab', 'cluster-admin', { kind: 'User', name: 'carol' }));
    assert.equal(grab.status, 403);
    assert.deepEqual(JSON.parse(grab.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "carol" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}',
      reason: 'Forbidden',
      details: { name: 'grab', group: RBAC, kind: 'rolebindings' },
      code: 403,
    });
    const nodesReader = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'nodes-reader' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }] };
    const role = await post(roles, nodesReader);
    assert.equal(role.status, 403);
    assert.equal(
      JSON.parse(role.body).message,
      'roles.rbac.authorization.k8s.io "nodes-reader" is forbidden: user "carol" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}',
    );
    // A missing role is named in the refusal.
    const missing = await post(bindings, roleBinding('team', 'ghost', 'no-such-role', { kind: 'User', name: 'carol' }, 'Role'));
    assert.equal(JSON.parse(missing.body).message, 'rolebindings.rbac.authorization.k8s.io "ghost" is forbidden: role.rbac.authorization.k8s.io "no-such-role" not found');
    // What carol holds she may grant.
    const podReader = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] };
    assert.equal((await post(roles, podReader)).status, 201);
    assert.equal((await post(bindings, roleBinding('team', 'alice-pods', 'pod-reader', { kind: 'User', name: 'alice' }, 'Role'))).status, 201);
    await until('alice may list pods in team', async () => (await server.request('/api/v1/namespaces/team/pods', { token: TOKENS.alice })).status === 200);
    // The bind verb lets one bind a role one does not hold.
    await server.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'bind-admin' }, rules: [{ apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] }] }),
    });
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(roleBinding('team', 'carol-bind', 'bind-admin', { kind: 'User', name: 'carol' })) });
    await until('carol may bind cluster-admin in team', async () => (await post(bindings, roleBinding('team', 'granted', 'cluster-admin', { kind: 'User', name: 'alice' }))).status === 201);
  });

  test('impersonation: kubectl --as and --as-group, checked with the impersonate verb', async () => {
    // Impersonating bob without his groups is bob alone: the RoleBinding to group dev does not apply.
    assert.equal((await server.kubectl(['get', 'configmaps', '-n', 'team', '--as=bob'])).code, 1);
    assert.match(await server.kubectlOk(['get', 'configmaps', '-n', 'team', '--as=bob', '--as-group=dev']), /^NAME/);
    const asBob = await server.kubectl(['get', 'pods', '-n', 'other', '--as=bob']);
    assert.equal(asBob.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "other"');
    const who = JSON.parse(await server.kubectlOk(['auth', 'whoami', '-o', 'json', '--as=dave', '--as-group=dev', '--as-group=ops', '--as-uid=u-dave'])) as { status: { userInfo: unknown } };
    assert.deepEqual(who.status.userInfo, { username: 'dave', uid: 'u-dave', groups: ['dev', 'ops', 'system:authenticated'] });
    const sa = JSON.parse(await server.kubectlOk(['auth', 'whoami', '-o', 'json', '--as=system:serviceaccount:team:robot'])) as { status: { userInfo: unknown } };
    assert.deepEqual(sa.status.userInfo, { username: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] });
    // Alice may not impersonate, until a role lets her impersonate bob (and only bob).
    const denied = await server.kubectl(['get', 'pods', '-n', 'team', '--as=bob'], { kubeconfig: kc.alice });
    assert.equal(denied.stderr.trim(), 'Error from server (Forbidden): users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
    await server.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'impersonate-bob' }, rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['bob'] }] }),
    });
    await server.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'alice-impersonates-bob' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'impersonate-bob' }, subjects: [{ apiGroup: RBAC, kind: 'User', name: 'alice' }] }),
    });
    await until('alice acts as bob', async () => (await server.kubectl(['auth', 'whoami', '--as=bob'], { kubeconfig: kc.alice })).code === 0);
    assert.match(await server.kubectlOk(['auth', 'whoami', '--as=bob'], { kubeconfig: kc.alice }), /Username\s+bob/);
    const group = await server.kubectl(['get', 'pods', '-n', 'team', '--as=bob', '--as-group=dev'], { kubeconfig: kc.alice });
    assert.equal(group.stderr.trim(), 'Error from server (Forbidden): groups "dev" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope');
    const extra = await server.request('/api/v1/namespaces/team/pods', { token: TOKENS.alice, headers: { 'Impersonate-User': 'bob', 'Impersonate-Extra-Scopes': 'view' } });
    assert.equal(JSON.parse(extra.body).message, 'userextras.authentication.k8s.io "view" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    const noUser = await server.adminRequest('/api', { headers: { 'Impersonate-Group': 'dev' } });
    assert.equal(noUser.status, 500);
    assert.equal(JSON.parse(noUser.body).message, 'Internal error occurred: requested [{Group  dev    }] without impersonating a user');
  });

  test('a binding\'s roleRef cannot change', async () => {
    const rb = JSON.parse(await server.kubectlOk(['get', 'rolebinding', 'dev-edit', '-n', 'team', '-o', 'json'])) as Record<string, unknown>;
    rb.roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
    const r = await server.kubectl(['replace', '-f', '-'], { input: JSON.stringify(rb) });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /The RoleBinding "dev-edit" is invalid: roleRef: Invalid value: rbac\.RoleRef\{APIGroup:"rbac\.authorization\.k8s\.io", Kind:"ClusterRole", Name:"view"\}: cannot change roleRef/);
  });

  test('a ClusterRole labelled aggregate-to-view adds its rules to view (and so to edit and admin)', async () => {
    await server.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
        rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
      }),
    });
    for (const role of ['view', 'edit', 'admin']) {
      await until(`${role} holds widgets`, async () => {
        const r = JSON.parse(await server.kubectlOk(['get', 'clusterrole', role, '-o', 'json'])) as { rules: { apiGroups?: string[] }[] };
        return r.rules.some((rule) => rule.apiGroups?.includes('example.com'));
      });
    }
    // A SelfSubjectAccessReview (kubectl can-i refuses a resource discovery does not list).
    const ssar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'team', verb: 'list', group: 'example.com', resource: 'widgets' } } };
    await until('bob (edit) may list widgets', async () => {
      const r = await server.request('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { method: 'POST', token: TOKENS.bob, body: JSON.stringify(ssar), headers: { 'content-type': 'application/json' } });
      return (JSON.parse(r.body) as { status: { allowed: boolean } }).status.allowed;
    });
  });
});

describe('RBAC defaults reconciled at every start (sqlite, same data dir)', () => {
  test('a deleted default comes back, a trimmed one regains its rules, autoupdate "false" is left alone', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'capstan-rbac-restart-'));
    try {
      let server = await startTestServer({ authorizationMode: ['RBAC'], storageBackend: 'sqlite', dataDir });
      try {
        await server.kubectlOk(['delete', 'clusterrole', 'system:discovery']);
        await server.kubectlOk(['patch', 'clusterrole', 'system:basic-user', '--type=json', '-p', '[{"op":"replace","path":"/rules","value":[]}]']);
        await server.kubectlOk(['patch', 'clusterrole', 'system:monitoring', '--type=json', '-p',
          '[{"op":"replace","path":"/rules","value":[]},{"op":"add","path":"/metadata/annotations/rbac.authorization.kubernetes.io~1autoupdate","value":"false"}]']);
        await server.kubectlOk(['patch', 'clusterrolebinding', 'system:basic-user', '--type=json', '-p', '[{"op":"add","path":"/subjects/-","value":{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"extra"}}]']);
      } finally {
        await server.close();
      }
      server = await startTestServer({ authorizationMode: ['RBAC'], storageBackend: 'sqlite', dataDir });
      try {
        const get = async (what: string) => JSON.parse(await server.kubectlOk(['get', what, '-o', 'json'])) as { rules?: unknown[]; subjects?: { name: string }[] };
        assert.ok(((await get('clusterrole/system:discovery')).rules ?? []).length > 0);
        assert.deepEqual((await get('clusterrole/system:basic-user')).rules, [
          { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'], verbs: ['create'] },
          { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectrulesreviews'], verbs: ['create'] },
          { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
        ]);
        assert.deepEqual((await get('clusterrole/system:monitoring')).rules ?? [], []);
        // Reconciliation adds; it does not take away what an administrator added.
        assert.deepEqual((await get('clusterrolebinding/system:basic-user')).subjects?.map((s) => s.name), ['system:authenticated', 'extra']);
      } finally {
        await server.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
