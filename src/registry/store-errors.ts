// Errors of the generic store that src/apis/errors.ts has no helper for, worded as kube-apiserver words them.

import { StatusError, type GroupResource, type Status } from '../apis/errors.ts';

/** A Status that carries list metadata (kube sets metadata.continue on an expired continue token). */
export class StatusErrorWithListMeta extends StatusError {
  readonly listMeta: Record<string, unknown>;
  constructor(code: number, reason: string, message: string, listMeta: Record<string, unknown>) {
    super(code, reason, message);
    this.listMeta = listMeta;
  }
  override toStatus(): Status {
    const s = super.toStatus();
    s.metadata = { ...this.listMeta };
    return s;
  }
}

/** kube's APIObjectVersioner.ParseResourceVersion failure: not a Status in kube, so it surfaces as a bare 500. */
export function invalidResourceVersion(rv: string): StatusError {
  const why = /^\d+$/.test(rv) ? 'value out of range' : 'invalid syntax';
  return new StatusError(500, '', `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`);
}

/** "" and "0" mean "any"/"latest" (0); otherwise a positive revision. */
export function parseResourceVersion(rv: string | undefined): number {
  if (rv === undefined || rv === '' || rv === '0') return 0;
  if (!/^\d+$/.test(rv)) throw invalidResourceVersion(rv);
  const n = Number(rv);
  if (!Number.isSafeInteger(n)) throw invalidResourceVersion(rv);
  return n;
}

/** storage.NewTooLargeResourceVersionError: the watch cache asks to retry after 1 s, etcd3's store after 0 (none). */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds = 1): StatusError {
  return new StatusError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
  });
}

export const LIST_TOO_OLD = 'The resourceVersion for the provided list is too old.';
export const CONTINUE_INCONSISTENT =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response body.';
export const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

export function watchTooOld(requested: number, compacted: number): StatusError {
  return new StatusError(410, 'Expired', `too old resource version: ${requested} (${compacted})`);
}

/** apierrors.NewForbidden. */
export function forbiddenError(gr: GroupResource, name: string, message: string): StatusError {
  const resource = gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
  const subject = name ? `${resource} ${JSON.stringify(name)}` : resource;
  const details: Record<string, string> = {};
  if (name) details.name = name;
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${message}`, details);
}

/** Creating in a namespace that is being deleted (NamespaceLifecycle admission). */
export function namespaceTerminating(gr: GroupResource, name: string, namespace: string): StatusError {
  const err = forbiddenError(gr, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
  err.details!.causes = [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }];
  return err;
}

/** apierrors.NewGenerateNameConflict. */
export function generateNameConflict(gr: GroupResource, name: string): StatusError {
  const resource = gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
  const details: Record<string, unknown> = { name };
  if (gr.group) details.group = gr.group;
  details.kind = gr.resource;
  details.retryAfterSeconds = 1;
  return new StatusError(409, 'AlreadyExists', `${resource} ${JSON.stringify(name)} already exists, the server was not able to generate a unique name for the object`, details);
}
