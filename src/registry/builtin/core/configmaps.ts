// ConfigMaps and Secrets (core validation ValidateConfigMap/ValidateSecret and their updates, the v1 Secret
// conversion that folds stringData into data, SetDefaults_Secret): key syntax, the 1 MiB size limit, the
// `immutable` flag, Secret types and their required keys.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { JsonSyntaxError, scanJsonBytes } from '../../../encoding/json-syntax.ts';
import type { JsonKind } from '../../../encoding/json-value.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import { isConfigMapKey } from '../../validation/names.ts';
import { buildStrategy } from '../generic.ts';
import { isObj, objAt, sortedMap, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { secretWarnings } from './tls-secret-warnings.ts';

export const MAX_SECRET_SIZE = 1024 * 1024;
const IMMUTABLE_SET = 'field is immutable when `immutable` is set';

/** reflect.DeepEqual over JSON maps: a missing map differs from an empty one, key order does not matter. */
function sameMap(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === undefined || v === null ? null : isObj(v) ? JSON.stringify(sortedMap(v as Record<string, string>)) : JSON.stringify(v));
  return norm(a) === norm(b);
}

function decodedLength(b64: unknown): number {
  return typeof b64 === 'string' ? Buffer.from(b64, 'base64').length : 0;
}

function keyErrors(map: Record<string, unknown> | undefined, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of Object.keys(map ?? {})) for (const m of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`${field}[${key}]`, key, m));
  return errs;
}

function immutableErrors(obj: KubeObject, old: KubeObject, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fieldErrors.forbidden('immutable', IMMUTABLE_SET));
  for (const f of fields) if (!sameMap(obj[f], old[f])) errs.push(fieldErrors.forbidden(f, IMMUTABLE_SET));
  return errs;
}

export function validateConfigMapContent(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = objAt(obj, 'data');
  const binary = objAt(obj, 'binaryData');
  let total = 0;
  for (const [key, value] of Object.entries(data ?? {})) {
    for (const m of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`data[${key}]`, key, m));
    if (binary && Object.hasOwn(binary, key)) errs.push(fieldErrors.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    total += typeof value === 'string' ? Buffer.byteLength(value) : 0;
  }
  errs.push(...keyErrors(binary, 'binaryData'));
  for (const value of Object.values(binary ?? {})) total += decodedLength(value);
  // The whole object is at fault: kube reports the empty path.
  if (total > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong('', MAX_SECRET_SIZE));
  return errs;
}

export function configMapFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      validate: (obj) => validateConfigMapContent(obj),
      validateUpdate: (obj, old, _ctx, validateNew) => [...immutableErrors(obj, old, ['data', 'binaryData']), ...validateNew()],
    }),
    printerColumns: [
      column('Data', 'string', 'Number of entries in data and binaryData.', (o) => Object.keys(objAt(o, 'data') ?? {}).length + Object.keys(objAt(o, 'binaryData') ?? {}).length),
      ageColumn,
    ],
    selectableFields: {},
  };
}

// ---- Secrets ----

/** The v1 -> internal conversion: stringData entries overwrite data entries (base64-encoded), stringData goes. */
export function mergeStringData(obj: KubeObject): void {
  const stringData = objAt(obj, 'stringData');
  if (stringData && Object.keys(stringData).length > 0) {
    const data = isObj(obj.data) ? obj.data : {};
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(typeof v === 'string' ? v : '', 'utf8').toString('base64');
    obj.data = data;
  }
  delete obj.stringData;
}

/** encoding/json's complaint about `bytes`, as json.Unmarshal into a map[string]interface{} gives it. */
function jsonMapError(bytes: Buffer): string | undefined {
  let topLevel: JsonKind;
  try {
    topLevel = scanJsonBytes(bytes).topLevel;
  } catch (e) {
    if (e instanceof JsonSyntaxError) return e.message;
    throw e;
  }
  if (topLevel === 'object' || topLevel === 'null') return undefined;
  return `json: cannot unmarshal ${topLevel} into Go value of type map[string]interface {}`;
}

export function validateSecretContent(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = objAt(obj, 'data') ?? {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const m of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`data[${key}]`, key, m));
    total += decodedLength(value);
  }
  if (total > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong('data', MAX_SECRET_SIZE));
  const has = (k: string) => Object.hasOwn(data, k);
  switch (strAt(obj, 'type')) {
    case 'kubernetes.io/service-account-token':
      if (!strAt(obj, 'metadata', 'annotations', 'kubernetes.io/service-account.name')) {
        errs.push(fieldErrors.required('metadata.annotations[kubernetes.io/service-account.name]'));
      }
      break;
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = strAt(obj, 'type') === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!has(key)) {
        errs.push(fieldErrors.required(`data[${key}]`));
        break;
      }
      const err = jsonMapError(Buffer.from(String(data[key]), 'base64'));
      if (err) errs.push(fieldErrors.invalid(`data[${key}]`, '<secret contents redacted>', err));
      break;
    }
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password')) {
        errs.push(fieldErrors.required('data[username]'), fieldErrors.required('data[password]'));
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if (decodedLength(data['ssh-privatekey']) === 0) errs.push(fieldErrors.required('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(fieldErrors.required('data[tls.crt]'));
      if (!has('tls.key')) errs.push(fieldErrors.required('data[tls.key]'));
      break;
  }
  return errs;
}

export function secretFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        mergeStringData(obj);
        if (typeof obj.type !== 'string' || obj.type === '') obj.type = 'Opaque';
      },
      validate: (obj) => validateSecretContent(obj),
      warnings: (obj) => secretWarnings(obj),
      validateUpdate(obj, old, _ctx, validateNew) {
        const errs: FieldError[] = [];
        if (strAt(obj, 'type') !== strAt(old, 'type')) errs.push(fieldErrors.invalid('type', strAt(obj, 'type'), FIELD_IMMUTABLE));
        return [...errs, ...immutableErrors(obj, old, ['data']), ...validateNew()];
      },
    }),
    printerColumns: [
      column('Type', 'string', 'The type of the secret.', (o) => strAt(o, 'type')),
      column('Data', 'string', 'Number of entries in data.', (o) => Object.keys(objAt(o, 'data') ?? {}).length),
      ageColumn,
    ],
    selectableFields: { type: (o) => strAt(o, 'type') },
  };
}
