// The field manager of non-apply writes: records each create, update and patch in metadata.managedFields under the
// request's manager, as kube-apiserver's handlers do around every write.

import { revertManagedFieldsTimestamps, updateManagedFields } from '../apply/index.ts';
import type { KubeObject, RequestContext, ResourceDefinition } from '../registry/types.ts';

function nowRfc3339(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

export function managedFieldsTracker(def: ResourceDefinition, manager: string): NonNullable<RequestContext['trackManagedFields']> {
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  return (old: KubeObject | undefined, next: KubeObject, subresource: string): KubeObject => {
    const updated = updateManagedFields(old, next, { manager, apiVersion, subresource: subresource || undefined, def, now: nowRfc3339() });
    // A write that changes nothing but managedFields timestamps keeps the old ones (and so stays a no-op).
    return old ? revertManagedFieldsTimestamps(updated, old) : updated;
  };
}
