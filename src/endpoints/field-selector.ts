// Field selector syntax and the field labels a resource supports, checked as kube-apiserver's
// fields.ParseSelector and ConvertFieldLabel do before a list, watch or deletecollection runs.

import { badRequest } from '../apis/errors.ts';
import type { ResourceDefinition } from '../registry/types.ts';

export interface FieldTerm {
  field: string;
  op: '=' | '==' | '!=';
  value: string;
}

function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) {
      escaped = false;
      continue;
    }
    if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

function splitTerm(term: string): [string, FieldTerm['op'], string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fields.ParseSelector: the terms in sorted order, or a 400 with kube's message. */
export function parseFieldSelector(selector: string): FieldTerm[] {
  const parts = splitTerms(selector).sort();
  const terms: FieldTerm[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    let value: string;
    try {
      value = unescapeValue(split[2]);
    } catch (e) {
      throw badRequest((e as Error).message);
    }
    terms.push({ field: split[0], op: split[1], value });
  }
  return terms;
}

/** ConvertFieldLabel for every term: fields outside the resource's selectable fields are a 400. */
export function checkFieldSelector(selector: string, def: ResourceDefinition): FieldTerm[] {
  const terms = parseFieldSelector(selector);
  const extra = Object.keys(def.selectableFields);
  const hasOwnConversion = def.custom || extra.length > 0;
  for (const term of terms) {
    const f = term.field;
    if (f === 'metadata.name' || extra.includes(f)) continue;
    if (f === 'metadata.namespace' && (!def.custom || def.namespaced)) continue;
    if (hasOwnConversion) throw badRequest(`field label not supported: ${f}`);
    throw badRequest(`"${f}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
  }
  return terms;
}

/** Selector.RequiresExactMatch: the value an = or == term demands of `field`, if any. */
export function requiresExactMatch(selector: string, field: string): string | undefined {
  for (const term of parseFieldSelector(selector)) {
    if (term.field === field && term.op !== '!=') return term.value;
  }
  return undefined;
}
