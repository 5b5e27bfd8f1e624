// YAML as kube-apiserver reads and writes it (sigs.k8s.io/yaml over go-yaml v2): YAML 1.1 scalars
// ("yes" is a boolean), only the first document of a stream, keys sorted on output, sequences not
// indented under their key.

import { createRequire } from 'node:module';

type YamlLibrary = typeof import('yaml');
let library: YamlLibrary | undefined;

/** The yaml library, loaded on first use: it costs about 30 ms of start-up, and many servers never see YAML. */
function yaml(): YamlLibrary {
  return (library ??= createRequire(import.meta.url)('yaml') as YamlLibrary);
}

export class YamlSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlSyntaxError';
  }
}

export interface ParsedYaml {
  value: unknown;
  /** go-yaml's strict-mode complaints, e.g. `line 3: key "a" already set in map`. */
  duplicates: string[];
}

function keyText(key: unknown): string {
  if (yaml().isScalar(key)) return String(key.value);
  return String(key);
}

/** Converts a YAML request body to its JSON value. Throws YamlSyntaxError worded like sigs.k8s.io/yaml. */
export function parseYaml(text: string): ParsedYaml {
  const { LineCounter, parseAllDocuments, isMap, isScalar, visit } = yaml();
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { version: '1.1', uniqueKeys: false, lineCounter, prettyErrors: false });
  if (!Array.isArray(docs)) return { value: null, duplicates: [] };
  const doc = docs[0];
  if (!doc) return { value: null, duplicates: [] };
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    const line = err.linePos?.[0]?.line ?? lineCounter.linePos(err.pos[0]).line;
    const message = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new YamlSyntaxError(`error converting YAML to JSON: yaml: line ${line}: ${message}`);
  }
  const duplicates: string[] = [];
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        const k = keyText(pair.key);
        if (seen.has(k)) {
          const offset = isScalar(pair.key) && pair.key.range ? pair.key.range[0] : 0;
          duplicates.push(`line ${lineCounter.linePos(offset).line}: key ${JSON.stringify(k)} already set in map`);
        } else seen.add(k);
      }
    },
  });
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch (e) {
    throw new YamlSyntaxError(`error converting YAML to JSON: yaml: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { value: value === undefined ? null : value, duplicates };
}

/** The strict-mode error sigs.k8s.io/yaml reports for duplicate keys (one line per duplicate). */
export function yamlDuplicateError(duplicates: readonly string[]): string {
  return `error converting YAML to JSON: yaml: unmarshal errors:\n${duplicates.map((d) => `  ${d}`).join('\n')}`;
}

/** A JSON value as YAML, the way kube-apiserver's YAML serializer prints it. */
export function encodeYaml(value: unknown): string {
  return yaml().stringify(value, { version: '1.1', sortMapEntries: true, indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
}
