// additionalPrinterColumns of a CRD version as kube's CR table convertor prints them (apiextensions-apiserver
// pkg/registry/customresource/tableconvertor): the first JSONPath match of each column, printed as text for
// "string" columns and typed (integer, number, boolean, date as an age) otherwise; no columns means one Age column.
// A column without a description is described by its JSONPath, as kube's convertor does.

import { compileJsonPath, JsonPathError } from '../../apis/jsonpath.ts';
import { translateTimestampSince } from '../builtin/printing.ts';
import type { KubeObject, PrinterColumn } from '../types.ts';
import type { CrdColumn } from './crd-types.ts';

/** The column kube serves when a version declares none (serveDefaultColumnsIfEmpty). */
const DEFAULT_COLUMNS: CrdColumn[] = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since the object was created.' }];

/** How kube's JSONPath printer writes one value: strings as they are, other values as JSON. */
function printed(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** cellForJSONValue: the typed cell of a non-string column, null when the value has another type. */
function typedCell(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'string':
      return typeof value === 'string' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : translateTimestampSince(value);
  }
  return null;
}

export function customResourceColumns(columns: readonly CrdColumn[]): PrinterColumn[] {
  const source = columns.length > 0 ? columns : DEFAULT_COLUMNS;
  return source.map((c) => {
    const type = c.type ?? 'string';
    let find: (obj: KubeObject) => unknown[];
    try {
      const path = compileJsonPath(c.jsonPath ?? '');
      find = (obj) => path.find(obj);
    } catch (e) {
      if (!(e instanceof JsonPathError)) throw e;
      find = () => [];
    }
    const column: PrinterColumn = {
      name: c.name ?? '',
      type,
      description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath ?? ''}`,
      priority: c.priority ?? 0,
      cell(obj) {
        const results = find(obj);
        if (results.length === 0) return null;
        return type === 'string' ? printed(results[0]) : typedCell(type, results[0]);
      },
    };
    if (c.format) column.format = c.format;
    return column;
  });
}
