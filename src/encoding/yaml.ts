// YAML as kube-apiserver reads and writes it (sigs.k8s.io/yaml over go-yaml v2): YAML 1.1 scalars
// ("yes" is a boolean), only the first document of a stream, keys sorted on output, sequences not
// indented under their key.

import { createRequire } from 'node:module';

type YamlLibrary = typeof import('yaml');
let library: YamlLibrary | undefined;

/** The yaml library, loaded on first use: it costs about 30 ms of start-up, and many servers never see YAML. */
export function yaml(): YamlLibrary {
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

/** go-yaml v2's max_flow_level and max_indents: deeper input is a scanner error. */
export const MAX_YAML_DEPTH = 10000;

type CstToken = { type: string; offset: number; value?: CstToken; items?: { key?: CstToken | null; value?: CstToken | null }[] };

/** The nesting check go-yaml's scanner makes, on the CST (walked with an explicit stack). */
function checkDepth(doc: CstToken, lineOf: (offset: number) => number): void {
  const stack: [CstToken, number, number][] = [[doc, 0, 0]];
  while (stack.length > 0) {
    const [token, block, flow] = stack.pop()!;
    let b = block;
    let f = flow;
    if (token.type === 'flow-collection') f++;
    else if (token.type === 'block-map' || token.type === 'block-seq') b++;
    if (b > MAX_YAML_DEPTH || f > MAX_YAML_DEPTH) {
      // Scanner errors name a line only past the first (go-yaml's parser.fail).
      const line = lineOf(token.offset);
      throw new YamlSyntaxError(`error converting YAML to JSON: yaml: ${line > 1 ? `line ${line}: ` : ''}exceeded max depth of ${MAX_YAML_DEPTH}`);
    }
    if (token.value) stack.push([token.value, b, f]);
    for (const item of token.items ?? []) {
      if (item.key) stack.push([item.key, b, f]);
      if (item.value) stack.push([item.value, b, f]);
    }
  }
}

/** go-yaml v2's allowedAliasRatio: 99% of decode work may come from aliases in small documents, 10% in huge ones. */
function allowedAliasRatio(decodeCount: number): number {
  const low = 400_000;
  const high = 4_000_000;
  if (decodeCount <= low) return 0.99;
  if (decodeCount >= high) return 0.1;
  return 0.99 - (0.89 * (decodeCount - low)) / (high - low);
}

type AstNode = { anchor?: string; source?: string; items?: unknown[]; key?: unknown; value?: unknown };

/**
 * go-yaml v2's alias rules, checked before anything expands an alias: an alias inside the value it names is
 * "anchor 'a' value contains itself", and a document whose decoding would mostly be alias expansion is
 * "document contains excessive aliasing" (billion laughs). Node counts are computed, never expanded.
 */
function checkAliases(root: unknown): void {
  const y = yaml();
  const children = (node: unknown): unknown[] => {
    if (y.isMap(node) || y.isSeq(node)) {
      const out: unknown[] = [];
      for (const item of node.items as unknown[]) {
        if (y.isPair(item)) out.push(item.key, item.value);
        else out.push(item);
      }
      return out;
    }
    return [];
  };
  // Anchors in document order: an alias names the latest node that carried its anchor before it.
  const anchors = new Map<string, unknown>();
  const targets = new Map<unknown, unknown>();
  let hasAlias = false;
  {
    const stack: unknown[] = [root];
    while (stack.length > 0) {
      const node = stack.pop() as AstNode | null | undefined;
      if (node === null || typeof node !== 'object') continue;
      if (y.isAlias(node)) {
        hasAlias = true;
        targets.set(node, anchors.get(node.source));
        continue;
      }
      if (node.anchor) anchors.set(node.anchor, node);
      const c = children(node);
      for (let i = c.length - 1; i >= 0; i--) stack.push(c[i]);
    }
  }
  if (!hasAlias) return;

  // Decode counts as go-yaml makes them: one per node, an alias counting its target's nodes again.
  const sizes = new Map<unknown, number>();
  const sizeOf = (start: unknown): number => {
    const known = sizes.get(start);
    if (known !== undefined) return known;
    const inProgress = new Set<unknown>();
    const stack: { node: unknown; next: unknown[]; total: number }[] = [];
    const enter = (node: unknown): void => {
      inProgress.add(node);
      stack.push({ node, next: y.isAlias(node) ? [targets.get(node)] : children(node), total: 1 });
    };
    enter(start);
    let result = 0;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      if (frame.next.length > 0) {
        const child = frame.next.shift();
        if (child === null || child === undefined || typeof child !== 'object') {
          frame.total += 1;
          continue;
        }
        const memo = sizes.get(child);
        if (memo !== undefined) frame.total += memo;
        else if (inProgress.has(child)) {
          const name = y.isAlias(frame.node) ? (frame.node as AstNode).source : (child as AstNode).anchor;
          throw new YamlSyntaxError(`error converting YAML to JSON: yaml: anchor '${name ?? ''}' value contains itself`);
        } else enter(child);
        continue;
      }
      stack.pop();
      inProgress.delete(frame.node);
      sizes.set(frame.node, frame.total);
      result = frame.total;
      if (stack.length > 0) stack[stack.length - 1].total += frame.total;
    }
    return result;
  };

  let decodeCount = 1; // the document node
  let aliasCount = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    decodeCount++;
    if (node === null || node === undefined || typeof node !== 'object') continue;
    if (y.isAlias(node)) {
      const target = targets.get(node);
      if (target === undefined) continue;
      const expanded = sizeOf(target);
      decodeCount += expanded;
      aliasCount += expanded;
      if (aliasCount > 100 && decodeCount > 1000 && aliasCount / decodeCount > allowedAliasRatio(decodeCount)) {
        throw new YamlSyntaxError('error converting YAML to JSON: yaml: document contains excessive aliasing');
      }
      continue;
    }
    const c = children(node);
    for (let i = c.length - 1; i >= 0; i--) stack.push(c[i]);
  }
}

/**
 * Converts a YAML request body to its JSON value. Throws YamlSyntaxError worded like sigs.k8s.io/yaml. Only the
 * first document is read (yaml.Unmarshal's reach): the rest of the stream is never lexed.
 */
export function parseYaml(text: string): ParsedYaml {
  const { Composer, LineCounter, Parser, isMap, isScalar, visit } = yaml();
  const lineCounter = new LineCounter();
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  const composer = new Composer({ version: '1.1', uniqueKeys: false, prettyErrors: false });
  // The composer only sees a document's tokens after its depth was checked.
  const checked = function* (tokens: Iterable<CstToken>): Generator<CstToken> {
    for (const token of tokens) {
      if (token.type === 'document') checkDepth(token, lineOf);
      yield token;
    }
  };
  let doc: import('yaml').Document.Parsed | undefined;
  for (const d of composer.compose(checked(new Parser(lineCounter.addNewLine).parse(text) as Iterable<CstToken>) as never)) {
    doc = d;
    break;
  }
  if (!doc) return { value: null, duplicates: [] };
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    const line = err.linePos?.[0]?.line ?? lineCounter.linePos(err.pos[0]).line;
    const message = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new YamlSyntaxError(`error converting YAML to JSON: yaml: line ${line}: ${message}`);
  }
  checkAliases(doc.contents);
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
    // Expansion was bounded by checkAliases (go-yaml's own rule), not by a count of alias nodes.
    value = doc.toJS({ maxAliasCount: -1 });
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
