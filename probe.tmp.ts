import { startTestServer } from './test/e2e/helpers.ts';
const s = await startTestServer();
const CM = '/api/v1/namespaces/default/configmaps';
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObj = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
await s.adminRequest(CM, { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' } }), headers: { 'content-type': 'application/json' } });
for (const n of [8000, 9998, 10001]) {
  const row: string[] = [String(n)];
  for (const [name, ct, body, method, path] of [
    ['create', 'application/json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"d-"},"x":${deep(n)}}`, 'POST', CM],
    ['createObj', 'application/json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"d-"},"x":${deepObj(n)}}`, 'POST', CM],
    ['merge', 'application/merge-patch+json', `{"x":${deep(n)}}`, 'PATCH', CM + '/p'],
    ['mergeObj', 'application/merge-patch+json', `{"x":${deepObj(n)}}`, 'PATCH', CM + '/p'],
    ['smp', 'application/strategic-merge-patch+json', `{"x":${deep(n)}}`, 'PATCH', CM + '/p'],
    ['smpObj', 'application/strategic-merge-patch+json', `{"x":${deepObj(n)}}`, 'PATCH', CM + '/p'],
    ['jsonp', 'application/json-patch+json', `[{"op":"add","path":"/x","value":${deep(n)}}]`, 'PATCH', CM + '/p'],
    ['apply', 'application/apply-patch+yaml', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"x":${deep(n)}}`, 'PATCH', CM + '/p?fieldManager=m'],
    ['applyObj', 'application/apply-patch+yaml', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"x":${deepObj(n)}}`, 'PATCH', CM + '/p?fieldManager=m'],
    ['yamlCreate', 'application/yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: y-}\nx: ${deep(n)}\n`, 'POST', CM],
  ] as const) {
    const r = await s.adminRequest(path, { method, body, headers: { 'content-type': ct } });
    row.push(`${name}=${r.status}${r.status >= 500 ? ':' + r.body.slice(60, 120) : ''}`);
  }
  console.log(row.join(' '));
}
await s.close();
