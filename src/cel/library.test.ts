// The Kubernetes CEL libraries in the server environment, function by function, with kube's results and errors.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileExpression, evaluate } from './environment.ts';
import { authorizerValue } from './library/authorizer.ts';
import type { CelAuthorizationAttributes } from './library/authorizer.ts';
import { DYN, jsonToCel } from './values.ts';

function run(expr: string, vars: Record<string, unknown> = {}): unknown {
  const decls = Object.fromEntries(Object.keys(vars).map((k) => [k, DYN]));
  const c = compileExpression(expr, decls);
  if (!c.ok) throw new Error(c.error);
  const r = evaluate(c.expression, vars, 1_000_000);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function runError(expr: string): string {
  const c = compileExpression(expr, {});
  if (!c.ok) return c.error;
  const r = evaluate(c.expression, {}, 1_000_000);
  assert.equal(r.ok, false, `${expr} should fail`);
  return r.ok ? '' : r.error;
}

function allTrue(exprs: string[], vars: Record<string, unknown> = {}): void {
  for (const e of exprs) assert.equal(run(e, vars), true, e);
}

test('lists: isSorted, sum, min, max, indexOf, lastIndexOf', () => {
  allTrue([
    '[1, 2, 2, 3].isSorted()',
    '![2, 1].isSorted()',
    "['a', 'b'].isSorted()",
    '[].isSorted()',
    '[1, 2, 3].sum() == 6',
    '[1.5, 2.5].sum() == 4.0',
    '[].sum() == 0',
    '[3, 1, 2].min() == 1',
    '[3, 1, 2].max() == 3',
    "['b', 'a'].min() == 'a'",
    '[1, 2, 1].indexOf(1) == 0',
    '[1, 2, 1].lastIndexOf(1) == 2',
    '[1, 2].indexOf(5) == -1',
    "[[1], [2]].indexOf([2]) == 1",
  ]);
  assert.equal(runError('[].min()'), 'min called on empty list');
  assert.equal(runError('[].max()'), 'max called on empty list');
});

test('sets: contains, equivalent, intersects', () => {
  allTrue(['sets.contains([1, 2, 3], [2, 3])', '!sets.contains([1], [2])', 'sets.equivalent([1, 2], [2, 1, 1])', 'sets.intersects([1, 2], [2, 5])', '!sets.intersects([1], [])']);
});

test('regex: find, findAll, matches', () => {
  allTrue([
    "'abc 123 def 456'.find('[0-9]+') == '123'",
    "'abc'.find('[0-9]+') == ''",
    "'abc 123 def 456'.findAll('[0-9]+') == ['123', '456']",
    "'a1b2c3'.findAll('[0-9]', 2) == ['1', '2']",
    "'a1b2c3'.findAll('[0-9]', 0) == []",
    "'a1b2c3'.findAll('[0-9]', -1).size() == 3",
    "'ABC'.matches('(?i)^abc$')",
    "'hello'.matches('^h')",
  ]);
  assert.match(runError("'a'.find('[')"), /^Illegal regex: /);
});

test('urls: url, isURL and the accessors', () => {
  allTrue([
    "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
    "isURL('/absolute-path')",
    "!isURL('example.com')",
    "!isURL('')",
    "url('https://example.com:8080/a/b').getScheme() == 'https'",
    "url('https://example.com:8080/a/b').getHost() == 'example.com:8080'",
    "url('https://example.com:8080/a/b').getHostname() == 'example.com'",
    "url('https://example.com:8080/a/b').getPort() == '8080'",
    "url('https://example.com/a/b').getPort() == ''",
    "url('https://[::1]:80/').getHostname() == '::1'",
    "url('https://[::1]:80/').getHost() == '[::1]:80'",
    "url('https://example.com/a%20b/c').getEscapedPath() == '/a%20b/c'",
    "url('https://example.com/?k=a&k=b&x=1').getQuery() == {'k': ['a', 'b'], 'x': ['1']}",
    "url('/path?a=1').getQuery()['a'] == ['1']",
    "url('https://example.com') == url('https://example.com')",
  ]);
  assert.equal(runError("url('example.com')"), 'URL parse error during conversion from string: parse "example.com": invalid URI for request');
});

test('quantity: parse, compare, arithmetic, conversions', () => {
  allTrue([
    "isQuantity('1.5Gi')",
    "!isQuantity('1.5GiB')",
    "quantity('1Gi').isGreaterThan(quantity('1G'))",
    "quantity('500m').isLessThan(quantity('1'))",
    "quantity('1') == quantity('1000m')",
    "quantity('2').compareTo(quantity('1')) == 1",
    "quantity('1').compareTo(quantity('1000m')) == 0",
    "quantity('-1').sign() == -1 && quantity('0').sign() == 0",
    "quantity('1').add(quantity('500m')) == quantity('1.5')",
    "quantity('1').add(2) == quantity('3')",
    "quantity('1').sub(quantity('500m')) == quantity('500m')",
    "quantity('5').sub(1) == quantity('4')",
    "quantity('1k').asInteger() == 1000",
    "quantity('1.5').isInteger() == false",
    "quantity('1.5').asApproximateFloat() == 1.5",
  ]);
  assert.equal(runError("quantity('1.5').asInteger()"), 'cannot convert value to integer');
  assert.equal(runError("quantity('abc')"), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
});

test('extended strings (cel-go strings library)', () => {
  allTrue([
    "'hello'.charAt(1) == 'e'",
    "'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3",
    "'hello'.indexOf('l', 3) == 3",
    "'HeLLo'.lowerAscii() == 'hello' && 'hello'.upperAscii() == 'HELLO'",
    "'a-b-c'.replace('-', '_') == 'a_b_c' && 'a-b-c'.replace('-', '_', 1) == 'a_b-c'",
    "'a,b,c'.split(',') == ['a', 'b', 'c'] && 'a,b,c'.split(',', 2) == ['a', 'b,c']",
    "'hello'.substring(1) == 'ello' && 'hello'.substring(1, 3) == 'el'",
    "'  x  '.trim() == 'x'",
    "['a', 'b'].join() == 'ab' && ['a', 'b'].join('-') == 'a-b'",
    "strings.quote('a\"b') == '\"a\\\\\"b\"'",
    "'%s is %d years'.format(['Ann', dyn(30)]) == 'Ann is 30 years'",
  ]);
});

test('optionals: functions and the ?. / [?] syntax', () => {
  const obj = new Map<string, unknown>([['a', new Map([['b', 1n]])]]);
  allTrue(
    [
      'optional.of(1).hasValue()',
      '!optional.none().hasValue()',
      'optional.none().orValue(5) == 5',
      'optional.of(1).value() == 1',
      'optional.none().or(optional.of(2)).value() == 2',
      "!optional.ofNonZeroValue('').hasValue()",
      'obj.?a.?b.orValue(0) == 1',
      'obj.?x.?b.orValue(0) == 0',
      'obj.?a.b.orValue(0) == 1',
      "obj[?'a'].hasValue()",
      "!obj[?'zz'].hasValue()",
      '[1, 2][?1].value() == 2',
      '![1, 2][?5].hasValue()',
      "'s.?x' == 's' + '.?x'",
      "obj.?a.?b.orValue(0) == 1 // don't stop at this apostrophe\n && obj.?zz.orValue(2) == 2",
    ],
    { obj },
  );
  assert.equal(runError('optional.none().value()'), 'optional.none() dereference');
});

test('cross-type numeric comparisons', () => {
  // equality and `in` across numeric types hold at run time; cel-go's checker refuses them between literals
  allTrue(['1 < 1.5', '2u > 1', 'dyn(1.0) == 1', '3 >= 2u', '[1, dyn(2.0)].isSorted()', 'dyn(1) in [1.0]']);
});

test('authorizer: the shape admission policies bind', () => {
  const seen: CelAuthorizationAttributes[] = [];
  const authz = authorizerValue(
    (a) => {
      seen.push(a);
      return a.resource === 'pods' ? { decision: 'Allow', reason: 'rbac' } : { decision: 'NoOpinion', reason: 'no rule' };
    },
    { name: 'alice', groups: ['dev'] },
  );
  allTrue(
    [
      "authorizer.group('').resource('pods').namespace('ns').check('get').allowed()",
      "!authorizer.group('apps').resource('deployments').subresource('scale').name('web').check('update').allowed()",
      "authorizer.group('apps').resource('deployments').check('update').reason() == 'no rule'",
      "!authorizer.path('/healthz').check('get').errored()",
      "authorizer.serviceAccount('kube-system', 'sa').group('').resource('pods').check('list').allowed()",
    ],
    { authorizer: authz },
  );
  assert.deepEqual(seen[0], { user: { name: 'alice', groups: ['dev'] }, resourceRequest: true, apiGroup: '', resource: 'pods', namespace: 'ns', verb: 'get' });
  assert.deepEqual(seen[1], { user: { name: 'alice', groups: ['dev'] }, resourceRequest: true, apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'web', verb: 'update' });
  assert.deepEqual(seen[3], { user: { name: 'alice', groups: ['dev'] }, resourceRequest: false, path: '/healthz', verb: 'get' });
  assert.equal(seen[4].user?.name, 'system:serviceaccount:kube-system:sa');
});

test('compile errors are rendered as cel-go renders issues', () => {
  assert.equal(compileExpression('foo(1)', {}).ok, false);
  const r = compileExpression('x.y == 1 && nope', { x: DYN });
  assert.deepEqual(r, { ok: false, error: "ERROR: <input>:1:13: undeclared reference to 'nope' (in container '')\n | x.y == 1 && nope\n | ............^" });
});

test('every undeclared reference is reported, in order, a call at its opening parenthesis as cel-go places it', () => {
  const r = compileExpression('foo(x) && x.bar() || nope', { x: DYN });
  assert.deepEqual(r, {
    ok: false,
    error: [
      "ERROR: <input>:1:4: undeclared reference to 'foo' (in container '')\n | foo(x) && x.bar() || nope\n | ...^",
      "ERROR: <input>:1:16: undeclared reference to 'bar' (in container '')\n | foo(x) && x.bar() || nope\n | ...............^",
      "ERROR: <input>:1:22: undeclared reference to 'nope' (in container '')\n | foo(x) && x.bar() || nope\n | .....................^",
    ].join('\n'),
  });
});

test('new expressions compile in the 1.30 environment, without the format library; stored ones with it', () => {
  const source = "format.named('uuid').hasValue()";
  assert.equal(compileExpression(source, {}).ok, true);
  assert.equal(compileExpression(source, {}, { environment: 'stored' }).ok, true);
  assert.deepEqual(compileExpression(source, {}, { environment: 'new' }), {
    ok: false,
    error:
      `ERROR: <input>:1:1: undeclared reference to 'format' (in container '')\n | ${source}\n | ^\n` +
      `ERROR: <input>:1:13: undeclared reference to 'named' (in container '')\n | ${source}\n | ............^`,
  });
  // the libraries of 1.30 and before are there for new expressions
  for (const ok of ["isCIDR('10.0.0.0/8') && ip('10.0.0.1').family() == 4", "quantity('1Gi').isGreaterThan(quantity('1Mi'))", "sets.contains([1, 2], [1])", "'a'.format([]) == 'a'"]) {
    assert.equal(compileExpression(ok, {}, { environment: 'new' }).ok, true, ok);
  }
});

test('the runtime cost limit stops an expensive evaluation', () => {
  const c = compileExpression('[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, x + y > 0))', {});
  assert.ok(c.ok);
  const cheap = evaluate(c.expression, {}, 1_000_000);
  assert.equal(cheap.ok, true);
  const r = evaluate(c.expression, {}, 50);
  assert.deepEqual([r.ok, r.ok ? '' : r.error], [false, 'operation cancelled: actual cost limit exceeded']);
});

test('list and map literals must be homogeneous, as in kube', () => {
  assert.deepEqual(compileExpression("[1, 'a'].size() == 2", {}), { ok: false, error: "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'].size() == 2\n | ....^" });
  assert.equal(compileExpression("{'a': 1, 'b': true}.size() == 2", {}).ok, false);
  assert.equal(compileExpression("[1, 'a'].size() == 2", {}, { homogeneousLiterals: false }).ok, true);
});

test('compiled programs are cached per expression and declarations', () => {
  const a = compileExpression('x > 1', { x: DYN });
  const b = compileExpression('x > 1', { x: DYN });
  const c = compileExpression('x > 1', { x: { kind: 'int' } });
  assert.ok(a.ok && b.ok && c.ok);
  assert.equal(a, b);
  assert.notEqual(a, c);
});

test('ip and cidr', () => {
  allTrue([
    "isIP('192.168.0.1') && isIP('::1') && !isIP('192.168.0.01') && !isIP('1.2.3') && !isIP('fe80::1%eth0')",
    "ip('10.0.0.1').family() == 4 && ip('2001:db8::1').family() == 6",
    "ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() && !ip('10.0.0.1').isLoopback()",
    "ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified()",
    "ip('169.254.1.1').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast()",
    "ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast()",
    "ip('8.8.8.8').isGlobalUnicast() && ip('10.0.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast()",
    "ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1') && !ip.isCanonical('2001:db8:0:0:0:0:0:1')",
    "string(ip('2001:db8:0:0:1:0:0:1')) == '2001:db8::1:0:0:1'",
    "string(ip('::ffff:0:1.2.3.4')) == '::ffff:0:102:304'",
    "ip('10.0.0.1') == ip('10.0.0.1') && ip('10.0.0.1') != ip('10.0.0.2')",
    "isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0/33') && !isCIDR('10.0.0.0')",
    "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3')) && cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP('11.0.0.1')",
    "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))",
    "cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8') && string(cidr('10.1.2.3/8').ip()) == '10.1.2.3' && cidr('10.0.0.0/8').prefixLength() == 8",
    "string(cidr('2001:db8::/32')) == '2001:db8::/32'",
  ]);
  assert.equal(runError("ip('::ffff:1.2.3.4')"), 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
  assert.equal(runError("ip('fe80::1%eth0')"), 'IP address "fe80::1%eth0" with zone value is not allowed');
});

test('runtime errors carry cel-go wording', () => {
  const c = compileExpression('l[5] == 0', { l: { kind: 'list', elem: { kind: 'int' } } });
  assert.ok(c.ok);
  const r = evaluate(c.expression, { l: jsonToCel([1, 2], { kind: 'list', elem: { kind: 'int' } }) }, 1000);
  assert.deepEqual(r.ok ? '' : r.error, "index '5' out of range in list size '2'");
  assert.equal(runError('1 / 0'), 'division by zero');
  assert.equal(runError('1 % 0'), 'modulus by zero');
  assert.equal(runError('9223372036854775807 + 1'), 'integer overflow');
  assert.equal(runError('0u - 1u'), 'unsigned integer overflow');
  assert.equal(runError("{'a': 1}.b"), 'no such key: b');
  assert.equal(runError("dyn(1) + 'a'"), 'no such overload');
});

test('format: named Kubernetes string formats', () => {
  allTrue([
    "!format.dns1123Label().validate('my-name').hasValue()",
    "format.dns1123Label().validate('My_Name').value() == [\"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"]",
    "!format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()",
    "format.dns1035Label().validate('1abc').hasValue()",
    "!format.qualifiedName().validate('example.com/MyName').hasValue()",
    "!format.dns1123LabelPrefix().validate('my-prefix-').hasValue()",
    "format.labelValue().validate('-bad').hasValue()",
    "!format.uri().validate('http://example.com').hasValue() && format.uri().validate('example.com').value() == ['parse \"example.com\": invalid URI for request']",
    "!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue() && format.uuid().validate('x').value() == ['does not match the UUID format']",
    "!format.byte().validate('aGVsbG8=').hasValue() && format.byte().validate('a').value() == ['invalid base64']",
    "!format.date().validate('2021-01-01').hasValue() && format.date().validate('2021-02-30').value() == ['invalid date']",
    "!format.datetime().validate('2021-01-01T00:00:00Z').hasValue() && format.datetime().validate('2021-01-01').value() == ['invalid datetime']",
    "format.named('uuid').hasValue() && !format.named('nope').hasValue()",
    "!format.named('dns1123Label').value().validate('ok').hasValue()",
  ]);
});

test('index operands are checked as cel-go checks them, at the bracket; a dyn container indexes to dyn', () => {
  const error = (e: string) => {
    const c = compileExpression(e, { d: DYN });
    return c.ok ? `ok ${c.expression.info.resultType === DYN ? 'dyn' : c.expression.info.resultType.kind}` : c.error.split('\n')[0];
  };
  assert.equal(error('[1][true]'), "ERROR: <input>:1:4: found no matching overload for '_[_]' applied to '(list(int), bool)'");
  assert.equal(error("{'a': 1}[1]"), "ERROR: <input>:1:9: found no matching overload for '_[_]' applied to '(map(string, int), int)'");
  assert.equal(error("'abc'[0]"), "ERROR: <input>:1:6: found no matching overload for '_[_]' applied to '(string, int)'");
  assert.equal(error("d['k']"), 'ok dyn');
  assert.equal(error("d['k'] == 1"), 'ok bool');
});
