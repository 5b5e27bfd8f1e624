// CSIDrivers (storage/v1 SetDefaults_CSIDriver; pkg/apis/storage/validation ValidateCSIDriver and its update:
// attachRequired and volumeLifecycleModes fixed; the strategy's seLinuxMount, kept only while
// SELinuxMountReadWriteOncePod is on, and its generation, counted from the first spec change; printCSIDriver).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { goNamedStrings } from '../../../apis/go-bad-values.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy, metaOf } from '../generic.ts';
import { arrAt, ensureObj, getPath, isObj, objAt, objsAt, semanticEqual, setDefault, strAt } from '../object.ts';
import { ageColumn, column, orNone } from '../printing.ts';

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MIN_TOKEN_SECONDS = 600;
const MAX_TOKEN_SECONDS = 2 ** 32;

type Gates = Readonly<Record<string, boolean>>;

/** SELinuxMountReadWriteOncePod, on by default in 1.31. */
const seLinuxMountEnabled = (gates: Gates): boolean => gates.SELinuxMountReadWriteOncePod !== false;

function defaultCSIDriver(obj: KubeObject, gates: Gates): void {
  const spec = ensureObj(obj, 'spec');
  setDefault(spec, 'attachRequired', true);
  setDefault(spec, 'podInfoOnMount', false);
  setDefault(spec, 'storageCapacity', false);
  setDefault(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
  if (arrAt(spec, 'volumeLifecycleModes').length === 0) spec.volumeLifecycleModes = ['Persistent'];
  setDefault(spec, 'requiresRepublish', false);
  if (seLinuxMountEnabled(gates)) setDefault(spec, 'seLinuxMount', false);
}

function dropSELinuxMount(obj: KubeObject): void {
  const spec = objAt(obj, 'spec');
  if (spec) delete spec.seLinuxMount;
}

/** PrepareForUpdate: seLinuxMount stays only where the gate is on or the old object has it; any spec change counts. */
function prepareCSIDriverUpdate(obj: KubeObject, old: KubeObject, gates: Gates): void {
  if (!seLinuxMountEnabled(gates) && getPath(old, 'spec', 'seLinuxMount') == null) dropSELinuxMount(obj);
  if (!semanticEqual(obj.spec, old.spec)) metaOf(obj).generation = (old.metadata?.generation ?? 0) + 1;
}

function validateCSIDriverSpec(obj: KubeObject, gates: Gates): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  // kube's path says attachedRequired.
  for (const [key, path] of [['attachRequired', 'attachedRequired'], ['podInfoOnMount', 'podInfoOnMount'], ['storageCapacity', 'storageCapacity']]) {
    if (typeof spec[key] !== 'boolean') errs.push(fieldErrors.required(`spec.${path}`));
  }
  const policy = spec.fsGroupPolicy;
  if (typeof policy === 'string' && !FS_GROUP_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('spec.fsGroupPolicy', policy, FS_GROUP_POLICIES));
  const audiences = new Set<string>();
  objsAt(spec, 'tokenRequests').forEach((t, i) => {
    const p = `spec.tokenRequests[${i}]`;
    const audience = strAt(t, 'audience');
    if (audiences.has(audience)) {
      errs.push(fieldErrors.duplicate(`${p}.audience`, audience));
      return;
    }
    audiences.add(audience);
    const seconds = t.expirationSeconds;
    if (typeof seconds !== 'number') return;
    if (seconds < MIN_TOKEN_SECONDS) errs.push(fieldErrors.invalid(`${p}.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > MAX_TOKEN_SECONDS) errs.push(fieldErrors.invalid(`${p}.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  for (const mode of arrAt(spec, 'volumeLifecycleModes')) {
    if (!LIFECYCLE_MODES.includes(String(mode))) errs.push(fieldErrors.notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  }
  if (typeof spec.seLinuxMount !== 'boolean' && seLinuxMountEnabled(gates)) errs.push(fieldErrors.required('spec.seLinuxMount'));
  return errs;
}

export const csiDriverFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    defaults: (obj) => defaultCSIDriver(obj, rules.featureGates),
    prepareForCreate(obj) {
      if (!seLinuxMountEnabled(rules.featureGates)) dropSELinuxMount(obj);
    },
    prepareForUpdate: (obj, old) => prepareCSIDriverUpdate(obj, old, rules.featureGates),
    validate: (obj) => validateCSIDriverSpec(obj, rules.featureGates),
    validateUpdate(obj, old) {
      const errs = validateCSIDriverSpec(obj, rules.featureGates);
      const attach = getPath(obj, 'spec', 'attachRequired');
      if (attach !== getPath(old, 'spec', 'attachRequired')) errs.push(fieldErrors.invalid('spec.attachedRequired', attach ?? null, FIELD_IMMUTABLE));
      const modes = getPath(obj, 'spec', 'volumeLifecycleModes');
      if (!semanticEqual(modes, getPath(old, 'spec', 'volumeLifecycleModes'))) {
        errs.push(fieldErrors.invalid('spec.volumeLifecycleModes', goNamedStrings('storage.VolumeLifecycleMode', modes), FIELD_IMMUTABLE));
      }
      return errs;
    },
  }),
  printerColumns: [
    column('AttachRequired', 'boolean', 'Whether volumes need attaching.', (o) => getPath(o, 'spec', 'attachRequired') !== false),
    column('PodInfoOnMount', 'boolean', 'Whether pod info is passed on mount.', (o) => getPath(o, 'spec', 'podInfoOnMount') === true),
    column('StorageCapacity', 'boolean', 'Whether capacity is tracked.', (o) => getPath(o, 'spec', 'storageCapacity') === true),
    column('TokenRequests', 'string', 'Audiences of requested tokens.', (o) => {
      const t = getPath(o, 'spec', 'tokenRequests');
      return Array.isArray(t) ? t.filter(isObj).map((x) => strAt(x, 'audience')).join(',') : '<unset>';
    }),
    column('RequiresRepublish', 'boolean', 'Whether volumes are republished periodically.', (o) => getPath(o, 'spec', 'requiresRepublish') === true),
    column('Modes', 'string', 'Volume lifecycle modes.', (o) => orNone(arrAt(o, 'spec', 'volumeLifecycleModes').map(String).join(','))),
    ageColumn,
  ],
  selectableFields: {},
});
