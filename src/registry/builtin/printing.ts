// Shared pieces of kube's table printers (pkg/printers/internalversion): the Age column, label and selector
// formatting, and container lists.

import { clockDate } from '../../apis/clock.ts';
import { formatLabelSelector as selectorString } from '../../apis/labels.ts';
import type { KubeObject, PrinterColumn } from '../types.ts';
import { humanDuration } from './duration.ts';
import { isObj, objsAt, strAt } from './object.ts';

/** translateTimestampSince: "<unknown>" for a missing time, else HumanDuration(now - t). */
export function translateTimestampSince(timestamp: unknown, now: Date = clockDate()): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration((now.getTime() - t) * 1e6);
}

/** The Name column's description in every Table (kube's quotes ObjectMeta's documentation, which is not copied here). */
export const NAME_COLUMN_DESCRIPTION = 'Name is unique within a namespace and identifies the object.';

export const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'string',
  description: 'Time since the object was created.',
  priority: 0,
  cell: (obj) => translateTimestampSince(obj.metadata?.creationTimestamp),
};

export function column(name: string, type: string, description: string, cell: (obj: KubeObject) => unknown, priority = 0, format?: string): PrinterColumn {
  return format ? { name, type, format, description, priority, cell } : { name, type, description, priority, cell };
}

/** labels.FormatLabels: "k=v,k2=v2" sorted by key, "<none>" when empty. */
export function formatLabels(labels: unknown): string {
  if (!isObj(labels)) return '<none>';
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${String(labels[k])}`).join(',');
}

/** metav1.FormatLabelSelector: the selector string, "<none>" when it selects everything or nothing. */
export function formatLabelSelector(selector: unknown): string {
  const s = selectorString(selector);
  return s === '' ? '<none>' : s;
}

/** layoutContainerCells: container names and images, comma separated. */
export function containerCells(podSpec: unknown): { names: string; images: string } {
  const containers = objsAt(podSpec, 'containers');
  return { names: containers.map((c) => strAt(c, 'name')).join(','), images: containers.map((c) => strAt(c, 'image')).join(',') };
}

/** "<none>" for an empty cell. */
export const orNone = (s: string) => (s === '' ? '<none>' : s);

/** "<unset>" for an empty cell. */
export const orUnset = (s: string) => (s === '' ? '<unset>' : s);

/** A list cell of at most max items: "a,b,c + N more...", "<unset>" when empty. */
export function listWithMore(list: string[], more: boolean, count: number, max: number): string {
  const s = list.join(',');
  if (more) return `${s} + ${count - max} more...`;
  return s === '' ? '<unset>' : s;
}

/** An IntOrString cell, "N/A" when unset. */
export function intOrStringCell(v: unknown): string {
  return typeof v === 'number' || typeof v === 'string' ? String(v) : 'N/A';
}

/** A resource.Quantity cell (quantities arrive as strings or numbers). */
export function quantityCell(v: unknown): string {
  return typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '0';
}

/** The Name column for printers that place it themselves (their table gets no leading Name column). */
export const ownNameColumn: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: NAME_COLUMN_DESCRIPTION,
  priority: 0,
  cell: (obj) => obj.metadata?.name ?? '',
};
