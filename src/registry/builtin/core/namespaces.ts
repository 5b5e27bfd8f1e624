// Namespaces (pkg/registry/core/namespace, pkg/apis/core/v1 defaults, core validation): phase Active on create,
// the "kubernetes" finalizer added, the kubernetes.io/metadata.name label always equal to the name, phase
// Terminating on delete, and the status and finalize subresources.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject, SubresourceStrategy } from '../../types.ts';
import { validateKubeFinalizerName, validateObjectMeta, validateObjectMetaUpdate, validateQualifiedName } from '../../validation/meta.ts';
import { buildStrategy, carrySystemMeta, metaOf, type BuiltinStrategy } from '../generic.ts';
import { arrAt, clone, ensureObj, isObj, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';

export const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';
export const FINALIZER_KUBERNETES = 'kubernetes';

function setNameLabel(obj: KubeObject): void {
  const meta = metaOf(obj);
  if (!meta.name) return;
  if (!isObj(meta.labels)) meta.labels = {};
  meta.labels[LABEL_METADATA_NAME] = meta.name;
}

function finalizerErrors(finalizers: unknown[], path: (i: number) => string): FieldError[] {
  const errs: FieldError[] = [];
  finalizers.forEach((f, i) => {
    const name = typeof f === 'string' ? f : '';
    errs.push(...validateQualifiedName(name, path(i)));
    errs.push(...validateKubeFinalizerName(name, path(i)));
  });
  return errs;
}

const finalize = (rules: TypeRules): SubresourceStrategy => ({
  prepareForUpdate(obj, old) {
    const merged = clone(obj);
    if (old.status === undefined) delete merged.status;
    else merged.status = clone(old.status);
    carrySystemMeta(merged, old);
    setNameLabel(merged);
    return merged;
  },
  validateUpdate(obj, old) {
    return [
      ...validateObjectMetaUpdate(obj.metadata, old.metadata, 'metadata', rules.kubeFinalizers),
      ...finalizerErrors(arrAt(obj, 'spec', 'finalizers'), (i) => `spec.finalizers[${i}]`),
    ];
  },
});

/** ValidateNamespaceStatusUpdate after ObjectMeta: the phase follows deletionTimestamp. */
function phaseErrors(obj: KubeObject): FieldError[] {
  const phase = strAt(obj, 'status', 'phase');
  if (!obj.metadata?.deletionTimestamp) {
    return phase === 'Active' ? [] : [fieldErrors.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  return phase === 'Terminating' ? [] : [fieldErrors.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
}

export function namespaceStrategy(rules: TypeRules): BuiltinStrategy {
  const validate = (obj: KubeObject) => [...validateObjectMeta(obj.metadata, rules), ...finalizerErrors(arrAt(obj, 'spec', 'finalizers'), () => 'spec.finalizers')];
  const metaUpdate = (obj: KubeObject, old: KubeObject) => validateObjectMetaUpdate(obj.metadata, old.metadata, 'metadata', rules.kubeFinalizers);
  return buildStrategy(rules, {
    // The strategy's ValidateUpdate runs ValidateNamespace before ValidateNamespaceUpdate (ObjectMeta's update rules).
    genericMetaOnly: true,
    defaults(obj) {
      setNameLabel(obj);
      if (isObj(obj.status) && !obj.status.phase) obj.status.phase = 'Active';
    },
    initialStatus: () => ({ phase: 'Active' }),
    prepareForCreate(obj) {
      const spec = ensureObj(obj, 'spec');
      const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
      if (!finalizers.includes(FINALIZER_KUBERNETES)) finalizers.push(FINALIZER_KUBERNETES);
      spec.finalizers = finalizers;
      setNameLabel(obj);
    },
    prepareForUpdate(obj, old) {
      // spec.finalizers change only through the finalize subresource.
      const oldFinalizers = (old.spec as { finalizers?: unknown } | undefined)?.finalizers;
      const spec = ensureObj(obj, 'spec');
      if (oldFinalizers === undefined) delete spec.finalizers;
      else spec.finalizers = clone(oldFinalizers);
      setNameLabel(obj);
    },
    validate,
    validateUpdate: (obj, old) => [...validate(obj), ...metaUpdate(obj, old)],
    resetMetaForStatus: (merged) => setNameLabel(merged),
    validateStatusUpdate: (obj, old) => [...metaUpdate(obj, old), ...phaseErrors(obj)],
    subresources: { finalize: finalize(rules) },
    prepareForDelete(obj) {
      ensureObj(obj, 'status').phase = 'Terminating';
    },
  });
}

export function namespaceFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: namespaceStrategy(rules),
    printerColumns: [column('Status', 'string', 'The phase of the namespace.', (o) => strAt(o, 'status', 'phase')), ageColumn],
    selectableFields: { 'status.phase': (o) => strAt(o, 'status', 'phase') },
  };
}
