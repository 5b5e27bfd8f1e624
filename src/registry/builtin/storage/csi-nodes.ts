// CSINodes (pkg/apis/storage/validation ValidateCSINode and its update: drivers named once, node IDs, topology
// keys, an existing driver entry fixed; the strategy validates an update as a create first; printCSINode).

import { fieldErrors, goStringsText, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goInt, goPointer, goText } from '../../../apis/go-bad-values.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE, validateNonnegative, validateObjectMeta, validateQualifiedName } from '../../validation/meta.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, getPath, objsAt, semanticEqual, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

// The strategy allows the longer node IDs (csiNodeIDLongerMaxLength).
const MAX_NODE_ID = 256;
const MAX_DRIVER_NAME = 63;

/** core validation ValidateCSIDriverName (a field, not an object name). */
export function csiDriverNameErrors(name: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(fieldErrors.required(path));
  if (name.length > MAX_DRIVER_NAME) errs.push(fieldErrors.tooLong(path, MAX_DRIVER_NAME));
  for (const m of isDNS1123Subdomain(name.toLowerCase())) errs.push(fieldErrors.invalid(path, name, m));
  return errs;
}

function validateCSINode(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objsAt(obj, 'spec', 'drivers').forEach((d, i) => {
    const p = `spec.drivers[${i}]`;
    const name = strAt(d, 'name');
    errs.push(...csiDriverNameErrors(name, `${p}.name`));
    const nodeID = strAt(d, 'nodeID');
    if (nodeID === '') errs.push(fieldErrors.required(`${p}.nodeID`));
    if (nodeID.length > MAX_NODE_ID) errs.push(fieldErrors.invalid(`${p}.nodeID`, nodeID, `must be ${MAX_NODE_ID} characters or less`));
    const count = getPath(d, 'allocatable', 'count');
    if (typeof count === 'number') errs.push(...validateNonnegative(count, `${p}.allocatable.count`));
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    names.add(name);
    const keys = new Set<string>();
    for (const key of arrAt(d, 'topologyKeys').map(String)) {
      if (key === '') errs.push(fieldErrors.required(p));
      if (keys.has(key)) errs.push(fieldErrors.duplicate(p, key));
      keys.add(key);
      errs.push(...validateQualifiedName(key, p));
    }
  });
  return errs;
}

/** Go's %#v of a storage.CSINodeDriver (pointers shown by their pointee). */
function goCSINodeDriver(d: Record<string, unknown>): unknown {
  const allocatable = goPointer('storage.VolumeNodeResources', d.allocatable, (a) => `storage.VolumeNodeResources{Count:${goPointer('int32', getPath(a, 'count'), goInt)}}`);
  const keys = goStringsText(Array.isArray(d.topologyKeys) ? d.topologyKeys : null);
  return renderedBadValue(`storage.CSINodeDriver{Name:${goText(d.name)}, NodeID:${goText(d.nodeID)}, TopologyKeys:${keys}, Allocatable:${allocatable}}`);
}

/** ValidateCSINodeUpdate's own rule: a driver entry the old object has stays as it was. */
function driverEntriesFixed(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const before of objsAt(old, 'spec', 'drivers')) {
    for (const after of objsAt(obj, 'spec', 'drivers')) {
      if (strAt(before, 'name') === strAt(after, 'name') && !semanticEqual(before, after)) errs.push(fieldErrors.invalid('spec.drivers', goCSINodeDriver(after), FIELD_IMMUTABLE));
    }
  }
  return errs;
}

export const csiNodeFacts: FactsMaker = (rules) => {
  const validateWhole = (obj: KubeObject): FieldError[] => [...validateObjectMeta(obj.metadata, rules), ...validateCSINode(obj)];
  return {
    strategy: buildStrategy(rules, {
      validate: validateCSINode,
      // The strategy: ValidateCSINode, then ValidateCSINodeUpdate (ValidateCSINode again, no ObjectMeta update rules).
      placesMetaUpdate: true,
      validateUpdate: (obj, old) => [...validateWhole(obj), ...validateWhole(obj), ...driverEntriesFixed(obj, old)],
    }),
    printerColumns: [column('Drivers', 'integer', 'Registered CSI drivers.', (o) => arrAt(o, 'spec', 'drivers').length), ageColumn],
    selectableFields: {},
  };
};
