// A set of field paths (sigs.k8s.io/structured-merge-diff fieldpath.Set) with its set algebra and the FieldsV1
// wire format of managedFields. A node is a member (the field itself is owned) and/or has children (owned
// fields below it). Sets are immutable once built: operations return new sets.

import {
  comparePathElements,
  deserializePathElement,
  serializePathElement,
  UnknownPathElementType,
  type Path,
  type PathElement,
} from './path-element.ts';

interface Node {
  readonly pe: PathElement;
  member: boolean;
  children: FieldSet | undefined;
}

export class FieldSet {
  /** Keyed by the serialized path element, which identifies it. */
  private readonly nodes = new Map<string, Node>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insertMut(p);
    return s;
  }

  /** A set from its top-level nodes (children already built). */
  static fromNodes(nodes: readonly { pe: PathElement; member: boolean; children: FieldSet | undefined }[]): FieldSet {
    const s = new FieldSet();
    for (const n of nodes) s.addNode(serializePathElement(n.pe), n.pe, n.member, n.children);
    return s;
  }

  /** Adds one path (mutating; only while building a set). The empty path (the whole object) is never tracked. */
  insertMut(path: Path): void {
    if (path.length === 0) return;
    let set: FieldSet = this;
    for (let i = 0; ; i++) {
      const pe = path[i]!;
      const key = serializePathElement(pe);
      let node = set.nodes.get(key);
      if (!node) {
        node = { pe, member: false, children: undefined };
        set.nodes.set(key, node);
      }
      if (i === path.length - 1) {
        node.member = true;
        return;
      }
      node.children ??= new FieldSet();
      set = node.children;
    }
  }

  /** Adds a whole node with its subtree (mutating; only while building a set), merging with an existing one. */
  mergeNodeMut(pe: PathElement, member: boolean, children: FieldSet | undefined): void {
    const key = serializePathElement(pe);
    const existing = this.nodes.get(key);
    if (existing) this.addNode(key, pe, existing.member || member, unionOpt(existing.children, children));
    else this.addNode(key, pe, member, children);
  }

  private addNode(key: string, pe: PathElement, member: boolean, children: FieldSet | undefined): void {
    const hasChildren = children !== undefined && !children.isEmpty();
    if (!member && !hasChildren) return;
    this.nodes.set(key, { pe, member, children: hasChildren ? children : undefined });
  }

  isEmpty(): boolean {
    for (const n of this.nodes.values()) {
      if (n.member) return false;
      if (n.children && !n.children.isEmpty()) return false;
    }
    return true;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let set: FieldSet | undefined = this;
    for (let i = 0; i < path.length; i++) {
      const node: Node | undefined = set!.nodes.get(serializePathElement(path[i]!));
      if (!node) return false;
      if (i === path.length - 1) return node.member;
      set = node.children;
      if (!set) return false;
    }
    return false;
  }

  /** The subset below one path element, without the prefix (Set.WithPrefix). */
  withPrefix(pe: PathElement): FieldSet {
    return this.nodes.get(serializePathElement(pe))?.children ?? EMPTY;
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, n] of this.nodes) {
      const o = other.nodes.get(key);
      if (!o) out.addNode(key, n.pe, n.member, n.children);
      else out.addNode(key, n.pe, n.member || o.member, unionOpt(n.children, o.children));
    }
    for (const [key, o] of other.nodes) if (!this.nodes.has(key)) out.addNode(key, o.pe, o.member, o.children);
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, n] of this.nodes) {
      const o = other.nodes.get(key);
      if (!o) continue;
      const children = n.children && o.children ? n.children.intersection(o.children) : undefined;
      out.addNode(key, n.pe, n.member && o.member, children);
    }
    return out;
  }

  /** Set.Difference: members removed one by one; a member of `other` does not remove this set's children. */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, n] of this.nodes) {
      const o = other.nodes.get(key);
      if (!o) {
        out.addNode(key, n.pe, n.member, n.children);
        continue;
      }
      const children = n.children && o.children ? n.children.difference(o.children) : n.children;
      out.addNode(key, n.pe, n.member && !o.member, children);
    }
    return out;
  }

  /** Set.RecursiveDifference: a member of `other` removes the field and everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, n] of this.nodes) {
      const o = other.nodes.get(key);
      if (!o) {
        out.addNode(key, n.pe, n.member, n.children);
        continue;
      }
      if (o.member) continue;
      const children = n.children && o.children ? n.children.recursiveDifference(o.children) : n.children;
      out.addNode(key, n.pe, n.member, children);
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    const a = this.sortedNodes();
    const b = other.sortedNodes();
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x = a[i]!;
      const y = b[i]!;
      if (comparePathElements(x.pe, y.pe) !== 0 || x.member !== y.member) return false;
      if (!(x.children ?? EMPTY).equals(y.children ?? EMPTY)) return false;
    }
    return true;
  }

  /** Nodes in path element order, empty ones left out. */
  sortedNodes(): { pe: PathElement; member: boolean; children: FieldSet | undefined }[] {
    return this.presentNodes().sort((a, b) => comparePathElements(a.pe, b.pe));
  }

  /** Nodes in no particular order, empty ones left out. */
  presentNodes(): { pe: PathElement; member: boolean; children: FieldSet | undefined }[] {
    const list: Node[] = [];
    for (const n of this.nodes.values()) {
      const hasChildren = n.children !== undefined && !n.children.isEmpty();
      if (n.member || hasChildren) list.push(hasChildren ? n : { pe: n.pe, member: n.member, children: undefined });
    }
    return list;
  }

  /** Every member path in Set.Iterate order: a level's members first, then each child's subtree. */
  paths(prefix: Path = []): Path[] {
    const out: Path[] = [];
    const nodes = this.sortedNodes();
    for (const n of nodes) if (n.member) out.push([...prefix, n.pe]);
    for (const n of nodes) if (n.children) out.push(...n.children.paths([...prefix, n.pe]));
    return out;
  }

  /** The FieldsV1 object, keys in kube's order: "." first, then path elements in their order. */
  toFieldsV1(): Record<string, unknown> {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const nodes = this.sortedNodes();
    if (includeSelf && nodes.length > 0) out['.'] = {};
    for (const n of nodes) {
      out[serializePathElement(n.pe)] = n.children ? n.children.emit(n.member) : {};
    }
    return out;
  }

  /** Parses FieldsV1 (fieldpath.Set.FromJSON); unknown path element types are dropped; throws on bad input. */
  static fromFieldsV1(fields: unknown): FieldSet {
    const set = readLevel(fields, '').children;
    return set ?? new FieldSet();
  }
}

const EMPTY = new FieldSet();

function unionOpt(a: FieldSet | undefined, b: FieldSet | undefined): FieldSet | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.union(b);
}

function readLevel(value: unknown, where: string): { children: FieldSet | undefined; member: boolean } {
  // A null value reads like an empty object.
  if (value === null || value === undefined) return { children: undefined, member: true };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`ReadMapCB: expect { or n, but found ${typeof value === 'string' ? '"' : Array.isArray(value) ? '[' : String(value).slice(0, 1)}${where ? ` at ${where}` : ''}`);
  }
  let member = false;
  let children: FieldSet | undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (key === '.') {
      member = true;
      continue;
    }
    let pe: PathElement;
    try {
      pe = deserializePathElement(key);
    } catch (e) {
      if (e instanceof UnknownPathElementType) continue;
      throw new Error(`parsing key as path element: ${(e as Error).message}`);
    }
    const sub = readLevel(child, key);
    children ??= new FieldSet();
    children.mergeNodeMut(pe, sub.member, sub.children);
  }
  if (!children) member = true;
  return { children, member };
}
