import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import { goNodeSelectorTerms, nodeSelectorErrors, nodeSelectorTermErrors } from './node-selector-validation.ts';

const SUBDOMAIN_ERROR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_ERROR =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const termErrors = (term: unknown) => nodeSelectorTermErrors(term, 't').map(fieldErrorString);

test('a node selector needs at least one term', () => {
  assert.deepEqual(nodeSelectorErrors({}, 'sel').map(fieldErrorString), ['sel.nodeSelectorTerms: Required value: must have at least one node selector term']);
  assert.deepEqual(nodeSelectorErrors({ nodeSelectorTerms: [] }, 'sel').map(fieldErrorString), ['sel.nodeSelectorTerms: Required value: must have at least one node selector term']);
  assert.deepEqual(nodeSelectorErrors({ nodeSelectorTerms: [{}, { matchExpressions: [{ key: 'k', operator: 'Exists' }] }] }, 'sel'), []);
  assert.deepEqual(nodeSelectorErrors({ nodeSelectorTerms: [{}, { matchExpressions: [{ key: 'k', operator: 'In' }] }] }, 'sel').map(fieldErrorString), [
    "sel.nodeSelectorTerms[1].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  ]);
});

test('label requirements: the operator decides how many values, the key is a label name', () => {
  assert.deepEqual(
    termErrors({
      matchExpressions: [
        { key: 'a', operator: 'NotIn', values: [] },
        { key: 'b', operator: 'DoesNotExist', values: ['x'] },
        { key: 'c', operator: 'Lt', values: ['1', '2'] },
        { key: 'd', operator: 'Gt' },
        { key: 'bad key', operator: 'Equals', values: ['x'] },
        { operator: 'Exists' },
      ],
    }),
    [
      "t.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "t.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      "t.matchExpressions[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
      "t.matchExpressions[3].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
      't.matchExpressions[4].operator: Invalid value: "Equals": not a valid selector operator',
      `t.matchExpressions[4].key: Invalid value: "bad key": ${NAME_PART_ERROR}`,
      't.matchExpressions[5].key: Invalid value: "": name part must be non-empty',
      `t.matchExpressions[5].key: Invalid value: "": ${NAME_PART_ERROR}`,
    ],
  );
});

test('label requirement values are not checked as label values (kube 1.31)', () => {
  assert.deepEqual(termErrors({ matchExpressions: [{ key: 'k', operator: 'In', values: ['not a label value!'] }, { key: 'n', operator: 'Gt', values: ['x y'] }] }), []);
});

test('field requirements: metadata.name only, one node name with In or NotIn', () => {
  assert.deepEqual(
    termErrors({
      matchFields: [
        { key: 'metadata.name', operator: 'In', values: ['node-1'] },
        { key: 'metadata.name', operator: 'NotIn', values: ['a', 'b'] },
        { key: 'spec.nodeName', operator: 'Exists' },
        { key: 'metadata.name', operator: 'In', values: ['Node_1'] },
      ],
    }),
    [
      "t.matchFields[1].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
      't.matchFields[2].operator: Invalid value: "Exists": not a valid selector operator',
      't.matchFields[2].key: Invalid value: "spec.nodeName": not a valid field selector key',
      `t.matchFields[3].values[0]: Invalid value: "Node_1": ${SUBDOMAIN_ERROR}`,
    ],
  );
});

test('terms render as Go prints a []core.NodeSelectorTerm', () => {
  assert.equal(
    goNodeSelectorTerms([{ matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] }]),
    '[]core.NodeSelectorTerm{core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{core.NodeSelectorRequirement{Key:"a", Operator:"In", Values:[]string{"x"}}}, MatchFields:[]core.NodeSelectorRequirement(nil)}}',
  );
});
