// Server-side printing: meta.k8s.io Table and PartialObjectMetadata(List) views of objects and lists,
// as kube-apiserver's asTable / asPartialObjectMetadata transforms build them.

import { StatusError, badRequest } from '../apis/errors.ts';
import { NAME_COLUMN_DESCRIPTION, ageColumn } from '../registry/builtin/printing.ts';
import type { KubeList, KubeObject, ListMeta, ResourceDefinition } from '../registry/types.ts';

export type IncludeObject = 'Metadata' | 'Object' | 'None';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

export interface TableOptions {
  includeObject: IncludeObject;
  /** Omit columnDefinitions (watch events after the first). */
  noHeaders: boolean;
}

/** Reads ?includeObject= as TableOptions, rejecting unknown values with kube's message. */
export function parseTableOptions(query: URLSearchParams): TableOptions {
  const raw = query.get('includeObject') ?? '';
  switch (raw) {
    case '':
    case 'Metadata':
      return { includeObject: 'Metadata', noHeaders: false };
    case 'Object':
    case 'None':
      return { includeObject: raw, noHeaders: false };
    default:
      throw badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(raw)}: must be 'Metadata', 'Object', 'None', or empty`);
  }
}

const nameColumn: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: NAME_COLUMN_DESCRIPTION,
  priority: 0,
};

const createdAtColumn: TableColumnDefinition = {
  name: 'Created At',
  type: 'date',
  format: '',
  description: 'CreationTimestamp is the server time at which the object was created.',
  priority: 0,
};

/** A printer with its own name-format column (events: a wide-only Name) gets no leading Name column. */
function printsOwnName(def: ResourceDefinition): boolean {
  return def.printerColumns.some((c) => c.format === 'name');
}

export function columnDefinitions(def: ResourceDefinition): TableColumnDefinition[] {
  if (def.printerColumns.length === 0) return [nameColumn, createdAtColumn];
  const columns = def.printerColumns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority }));
  return printsOwnName(def) ? columns : [nameColumn, ...columns];
}

function cellsFor(def: ResourceDefinition, obj: KubeObject): unknown[] {
  const name = obj.metadata?.name ?? '';
  if (def.printerColumns.length === 0) return [name, obj.metadata?.creationTimestamp || '0001-01-01T00:00:00Z'];
  const cells: unknown[] = printsOwnName(def) ? [] : [name];
  for (const column of def.printerColumns) {
    const value = column.cell(obj);
    cells.push(value === undefined ? null : value);
  }
  return cells;
}

/** The columns of a Table and the cells of each of its rows. */
interface TablePrinter {
  readonly columns: () => TableColumnDefinition[];
  readonly cells: (obj: KubeObject) => unknown[];
}

/**
 * kube's printScale, the printer of the autoscaling/v1 Scale the built-in scale subresources answer with: its Name
 * column has no "name" format. A custom resource's scale subresource keeps the CRD's columns (kube's scale request
 * scope is a copy of the resource's, table convertor included), read from the Scale.
 */
const scalePrinter: TablePrinter = {
  columns: () => [
    { name: 'Name', type: 'string', format: '', description: NAME_COLUMN_DESCRIPTION, priority: 0 },
    { name: 'Desired', type: 'integer', format: '', description: 'The desired number of instances of the scaled object.', priority: 0 },
    { name: 'Available', type: 'integer', format: '', description: 'The observed number of instances of the scaled object.', priority: 0 },
    { name: ageColumn.name, type: ageColumn.type, format: '', description: ageColumn.description ?? '', priority: 0 },
  ],
  cells: (obj) => [obj.metadata?.name ?? '', replicasAt(obj.spec), replicasAt(obj.status), ageColumn.cell(obj)],
};

function replicasAt(part: unknown): number {
  const replicas = (part as { replicas?: unknown } | undefined)?.replicas;
  return typeof replicas === 'number' ? replicas : 0;
}

function printerOf(def: ResourceDefinition, subresource: string): TablePrinter {
  if (subresource === 'scale' && !def.custom) return scalePrinter;
  return { columns: () => columnDefinitions(def), cells: (obj) => cellsFor(def, obj) };
}

export function partialObjectMetadata(obj: KubeObject, version: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

/** The object with its kind and apiVersion (list items of built-in types carry neither). */
export function withTypeMeta(obj: KubeObject, def: ResourceDefinition): KubeObject {
  if (obj.kind && obj.apiVersion) return obj;
  return { apiVersion: def.group ? `${def.group}/${def.version}` : def.version, kind: def.kind, ...obj };
}

function isList(obj: KubeObject | KubeList): obj is KubeList {
  return Array.isArray((obj as KubeList).items);
}

/** asTable: one row per object (or per list item), with the row object as includeObject asks. */
export function toTable(def: ResourceDefinition, source: KubeObject | KubeList, options: TableOptions, version: string, subresource = ''): Table {
  const printer = printerOf(def, subresource);
  const items = isList(source) ? source.items : [source];
  const rows: TableRow[] = items.map((item) => {
    let object: unknown = null;
    if (options.includeObject === 'Metadata') object = partialObjectMetadata(item, version);
    else if (options.includeObject === 'Object') object = withTypeMeta(item, def);
    return { cells: printer.cells(item), object };
  });
  const metadata: ListMeta = {};
  if (isList(source)) {
    if (source.metadata?.resourceVersion) metadata.resourceVersion = source.metadata.resourceVersion;
    if (source.metadata?.continue) metadata.continue = source.metadata.continue;
    if (source.metadata?.remainingItemCount !== undefined) metadata.remainingItemCount = source.metadata.remainingItemCount;
  } else if (source.metadata?.resourceVersion) {
    metadata.resourceVersion = source.metadata.resourceVersion;
  }
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata,
    columnDefinitions: options.noHeaders ? null : printer.columns(),
    rows,
  };
}

/** The Go type kube names in its NotAcceptable messages for a definition's list ("*core.ConfigMapList"). */
function goListType(def: ResourceDefinition): string {
  if (def.custom) return '*unstructured.UnstructuredList';
  const pkg = def.group === '' ? 'core' : def.group.split('.')[0];
  return `*${pkg}.${def.listKind}`;
}

function goObjectType(def: ResourceDefinition): string {
  if (def.custom) return '*unstructured.Unstructured';
  const pkg = def.group === '' ? 'core' : def.group.split('.')[0];
  return `*${pkg}.${def.kind}`;
}

function notAcceptableMessage(message: string): StatusError {
  return new StatusError(406, 'NotAcceptable', message);
}

export function toPartialObjectMetadata(def: ResourceDefinition, source: KubeObject | KubeList, version: string): KubeObject {
  if (isList(source)) throw notAcceptableMessage(`you requested PartialObjectMetadata, but the requested object is a list (${goListType(def)})`);
  return partialObjectMetadata(source, version);
}

export function toPartialObjectMetadataList(def: ResourceDefinition, source: KubeObject | KubeList, version: string): KubeList {
  if (!isList(source)) throw notAcceptableMessage(`you requested PartialObjectMetadataList, but the requested object is not a list (${goObjectType(def)})`);
  const metadata: ListMeta = {};
  if (source.metadata?.resourceVersion) metadata.resourceVersion = source.metadata.resourceVersion;
  if (source.metadata?.continue) metadata.continue = source.metadata.continue;
  if (source.metadata?.remainingItemCount !== undefined) metadata.remainingItemCount = source.metadata.remainingItemCount;
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata,
    items: source.items.map((item) => partialObjectMetadata(item, version)),
  };
}
