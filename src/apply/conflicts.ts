// Apply conflicts (structured-merge-diff merge.Conflicts) and the 409 kube-apiserver answers with
// (managedfields/internal/conflict.go, apierrors.NewApplyConflict).

import { StatusError, type StatusCause } from '../apis/errors.ts';
import { goQuote } from '../encoding/go-format.ts';
import { compareGoStrings } from './go-format.ts';
import { parseManagerIdentifier } from './managed-fields.ts';
import { pathString, type Path } from './path-element.ts';

export interface Conflict {
  /** The manager identity (JSON of its identifying entry fields). */
  readonly manager: string;
  readonly path: Path;
}

/** Thrown by the updater when an apply without force changes fields other managers own. */
export class ConflictsError extends Error {
  readonly conflicts: readonly Conflict[];
  constructor(conflicts: readonly Conflict[]) {
    super(`conflicts: ${conflicts.map((c) => `${c.manager} ${pathString(c.path)}`).join(', ')}`);
    this.name = 'ConflictsError';
    this.conflicts = conflicts;
  }
}

/** printManager: `"name"`, `"name" with subresource "status"`, and ` using <apiVersion>` for updaters. */
export function printManager(identity: string): string {
  const info = parseManagerIdentifier(identity);
  if (!info) return goQuote(identity);
  let s = goQuote(info.manager ?? '');
  if (info.subresource) s += ` with subresource ${goQuote(info.subresource)}`;
  if (info.operation === 'Update') s += ` using ${info.apiVersion ?? ''}`;
  return s;
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.manager) ?? [];
    list.push(c.path);
    byManager.set(c.manager, list);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort(compareGoStrings)) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const p of byManager.get(manager)!) lines.push(`- ${pathString(p)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** NewConflictError: 409 Conflict with one FieldManagerConflict cause per conflicting field. */
export function conflictStatusError(conflicts: readonly Conflict[]): StatusError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  return new StatusError(409, 'Conflict', conflictMessage(conflicts), { causes });
}
