// Pruning of fields the schema does not specify (apiextensions-apiserver pkg/apiserver/schema/pruning): in
// place, x-kubernetes-preserve-unknown-fields honoured at any depth, apiVersion/kind/metadata of the root and
// of embedded resources kept. Returns the pruned paths sorted, as kube reports them for fieldValidation.

import type { CompiledNode } from './compiled-node.ts';
import { pruneObjectMeta } from './embedded-meta-prune.ts';
import { isPlainObject } from './go-values.ts';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

class Pruner {
  readonly pruned: string[] = [];
  /** Unknown ObjectMeta fields of embedded resources, dropped as kube's metadata coercion drops them. */
  readonly metaUnknown: string[] = [];
  private readonly coerceEmbeddedMeta: boolean;
  constructor(coerceEmbeddedMeta: boolean) {
    this.coerceEmbeddedMeta = coerceEmbeddedMeta;
  }
  /** UnknownFieldPathOptions.ParentPath: the segments ("spec", ".", "items", "[0]") of the current value. */
  private readonly parent: string[] = [];

  private record(key: string): void {
    this.pruned.push(this.parent.length > 0 ? `${this.parent.join('')}.${key}` : key);
  }

  private withKey(key: string, fn: () => void): void {
    const len = this.parent.length;
    if (len > 0) this.parent.push('.');
    this.parent.push(key);
    fn();
    this.parent.length = len;
  }

  private withIndex(i: number, fn: () => void): void {
    const len = this.parent.length;
    this.parent.push(`[${i}]`);
    fn();
    this.parent.length = len;
  }

  prune(x: unknown, s: CompiledNode | undefined, embedded: boolean): void {
    if (s?.preserveUnknownFields) {
      this.skipPrune(x, s, embedded);
      return;
    }
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        const v = x[i];
        if (v !== null && typeof v === 'object') this.withIndex(i, () => this.prune(v, s?.items, s?.items?.embeddedResource ?? false));
      }
      return;
    }
    if (!isPlainObject(x)) return;
    if (!s) {
      for (const k of Object.keys(x)) {
        this.record(k);
        delete x[k];
      }
      return;
    }
    const ap = s.additionalProperties;
    if (embedded && this.coerceEmbeddedMeta && this.parent.length > 0) this.coerceMeta(x);
    for (const k of Object.keys(x)) {
      if (embedded && META_FIELDS.has(k)) continue;
      const prop = s.properties?.get(k);
      if (prop) {
        const v = x[k];
        if (v !== null && typeof v === 'object') this.withKey(k, () => this.prune(v, prop, prop.embeddedResource));
      } else if (ap !== undefined) {
        // additionalProperties true/false without a schema: the key stays, its content is pruned against nothing
        const v = x[k];
        const sub = typeof ap === 'object' ? ap : undefined;
        if (v !== null && typeof v === 'object') this.withKey(k, () => this.prune(v, sub, sub?.embeddedResource ?? false));
      } else {
        if (!META_FIELDS.has(k) || this.parent.length > 0) this.record(k);
        delete x[k];
      }
    }
  }

  private coerceMeta(x: Record<string, unknown>): void {
    if (isPlainObject(x.metadata)) this.metaUnknown.push(...pruneObjectMeta(x.metadata, `${this.parent.join('')}.metadata`));
  }

  private skipPrune(x: unknown, s: CompiledNode, embedded: boolean): void {
    if (Array.isArray(x)) {
      if (!s.items) return;
      const items = s.items;
      for (let i = 0; i < x.length; i++) {
        const v = x[i];
        if (v !== null && typeof v === 'object') this.withIndex(i, () => this.skipOrPrune(v, items));
      }
      return;
    }
    if (!isPlainObject(x)) return;
    const ap = s.additionalProperties;
    if (embedded && this.coerceEmbeddedMeta && this.parent.length > 0) this.coerceMeta(x);
    for (const k of Object.keys(x)) {
      if (embedded && META_FIELDS.has(k)) continue;
      const v = x[k];
      if (v === null || typeof v !== 'object') continue;
      const prop = s.properties?.get(k);
      if (prop) this.withKey(k, () => this.prune(v, prop, prop.embeddedResource));
      else if (ap !== undefined) {
        const sub = typeof ap === 'object' ? ap : undefined;
        this.withKey(k, () => this.prune(v, sub, sub?.embeddedResource ?? false));
      }
    }
  }

  /** skipPrune recurses into array items with skipPrune itself, which prunes only below known properties. */
  private skipOrPrune(v: unknown, items: CompiledNode): void {
    this.skipPrune(v, items, items.embeddedResource);
  }
}

/**
 * The decoder's coercion of embedded ObjectMeta, then pruning.PruneWithOptions(obj, s, isResourceRoot=true):
 * embedded metadata's unknown fields first, then the pruned paths sorted. The root's metadata is left alone.
 */
export function pruneUnknown(obj: unknown, root: CompiledNode): string[] {
  const p = new Pruner(true);
  p.prune(obj, root, true);
  return [...p.metaUnknown, ...p.pruned.sort()];
}

/** Pruning a value below the root (defaults at CRD write time): isResourceRoot = the node's embedded flag. */
export function pruneValue(value: unknown, node: CompiledNode): string[] {
  const p = new Pruner(false);
  p.prune(value, node, node.embeddedResource);
  return p.pruned.sort();
}
