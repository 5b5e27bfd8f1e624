// An ordered set of strings (a B+ tree whose branches count their keys), so that insert, delete and rank are
// O(log n) and a range walk costs O(log n + keys visited). Keys compare by UTF-16 code units (JS `<`).

const MAX_ENTRIES = 64;
const MIN_ENTRIES = 16;

interface Leaf {
  readonly leaf: true;
  keys: string[];
}

interface Branch {
  readonly leaf: false;
  children: TreeNode[];
  /** seps[i] <= every key of children[i] < seps[i + 1]; seps[0] is not consulted. */
  seps: string[];
  /** sizes[i]: number of keys under children[i]. */
  sizes: number[];
  size: number;
}

type TreeNode = Leaf | Branch;

function entryCount(node: TreeNode): number {
  return node.leaf ? node.keys.length : node.children.length;
}

function keyCount(node: TreeNode): number {
  return node.leaf ? node.keys.length : node.size;
}

/** First index whose key is >= key. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The child of a branch that holds (or would hold) key. */
function childIndex(branch: Branch, key: string): number {
  let lo = 1;
  let hi = branch.children.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (branch.seps[mid] <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** A separator usable for a node produced by a split: its smallest key. */
function lowKey(node: TreeNode): string {
  return node.leaf ? node.keys[0] : node.seps[0];
}

const EXISTS = false;

/** Inserts key; returns EXISTS, null (inserted), or the new right sibling when the node split. */
function insertInto(node: TreeNode, key: string): TreeNode | null | typeof EXISTS {
  if (node.leaf) {
    const i = lowerBound(node.keys, key);
    if (node.keys[i] === key) return EXISTS;
    node.keys.splice(i, 0, key);
    if (node.keys.length <= MAX_ENTRIES) return null;
    return { leaf: true, keys: node.keys.splice(MAX_ENTRIES >>> 1) };
  }
  const i = childIndex(node, key);
  const child = node.children[i];
  const split = insertInto(child, key);
  if (split === EXISTS) return EXISTS;
  node.size++;
  if (split === null) {
    node.sizes[i]++;
    return null;
  }
  node.sizes[i] = keyCount(child);
  node.children.splice(i + 1, 0, split);
  node.seps.splice(i + 1, 0, lowKey(split));
  node.sizes.splice(i + 1, 0, keyCount(split));
  if (node.children.length <= MAX_ENTRIES) return null;
  const half = MAX_ENTRIES >>> 1;
  const sizes = node.sizes.splice(half);
  let moved = 0;
  for (const s of sizes) moved += s;
  node.size -= moved;
  return { leaf: false, children: node.children.splice(half), seps: node.seps.splice(half), sizes, size: moved };
}

/** Merges children[right] into children[right - 1] of a branch. */
function mergeChildren(branch: Branch, right: number): void {
  const a = branch.children[right - 1];
  const b = branch.children[right];
  if (a.leaf && b.leaf) {
    for (const k of b.keys) a.keys.push(k);
  } else if (!a.leaf && !b.leaf) {
    b.seps[0] = branch.seps[right];
    for (let j = 0; j < b.children.length; j++) {
      a.children.push(b.children[j]);
      a.seps.push(b.seps[j]);
      a.sizes.push(b.sizes[j]);
    }
    a.size += b.size;
  }
  branch.sizes[right - 1] += branch.sizes[right];
  branch.children.splice(right, 1);
  branch.seps.splice(right, 1);
  branch.sizes.splice(right, 1);
}

function deleteFrom(node: TreeNode, key: string): boolean {
  if (node.leaf) {
    const i = lowerBound(node.keys, key);
    if (node.keys[i] !== key) return false;
    node.keys.splice(i, 1);
    return true;
  }
  const i = childIndex(node, key);
  const child = node.children[i];
  if (!deleteFrom(child, key)) return false;
  node.size--;
  node.sizes[i]--;
  if (entryCount(child) < MIN_ENTRIES && node.children.length > 1) {
    const right = i > 0 ? i : 1;
    if (entryCount(node.children[right - 1]) + entryCount(node.children[right]) <= MAX_ENTRIES) mergeChildren(node, right);
  }
  return true;
}

/** Calls visit for each key >= start (all keys when start is undefined) in order until visit returns false. */
function walk(node: TreeNode, start: string | undefined, visit: (key: string) => boolean): boolean {
  if (node.leaf) {
    const keys = node.keys;
    for (let i = start === undefined ? 0 : lowerBound(keys, start); i < keys.length; i++) {
      if (!visit(keys[i])) return false;
    }
    return true;
  }
  let i = start === undefined ? 0 : childIndex(node, start);
  if (!walk(node.children[i], start, visit)) return false;
  for (i++; i < node.children.length; i++) {
    if (!walk(node.children[i], undefined, visit)) return false;
  }
  return true;
}

/**
 * Appends the keys >= start (all when undefined) and < end (no bound when undefined), in order, until out holds
 * `until`; false once done.
 */
function collectFrom(node: TreeNode, start: string | undefined, end: string | undefined, until: number, out: string[]): boolean {
  if (node.leaf) {
    const keys = node.keys;
    for (let i = start === undefined ? 0 : lowerBound(keys, start); i < keys.length; i++) {
      const key = keys[i];
      if ((end !== undefined && key >= end) || out.length >= until) return false;
      out.push(key);
    }
    return true;
  }
  let i = start === undefined ? 0 : childIndex(node, start);
  if (!collectFrom(node.children[i], start, end, until, out)) return false;
  for (i++; i < node.children.length; i++) {
    if (end !== undefined && node.seps[i] >= end) return false;
    if (!collectFrom(node.children[i], undefined, end, until, out)) return false;
  }
  return true;
}

export class SortedKeys {
  #root: TreeNode = { leaf: true, keys: [] };

  get size(): number {
    return keyCount(this.#root);
  }

  /** Adds key; false when it was already present. */
  add(key: string): boolean {
    const root = this.#root;
    const split = insertInto(root, key);
    if (split === EXISTS) return false;
    if (split !== null) {
      this.#root = { leaf: false, children: [root, split], seps: ['', lowKey(split)], sizes: [keyCount(root), keyCount(split)], size: keyCount(root) + keyCount(split) };
    }
    return true;
  }

  /** Removes key; false when it was absent. */
  delete(key: string): boolean {
    if (!deleteFrom(this.#root, key)) return false;
    let root = this.#root;
    while (!root.leaf && root.children.length === 1) root = root.children[0];
    this.#root = root;
    return true;
  }

  has(key: string): boolean {
    let node = this.#root;
    while (!node.leaf) node = node.children[childIndex(node, key)];
    const i = lowerBound(node.keys, key);
    return node.keys[i] === key;
  }

  /** How many keys are < key (all keys when key is undefined). */
  rank(key: string | undefined): number {
    let node = this.#root;
    if (key === undefined) return keyCount(node);
    let before = 0;
    while (!node.leaf) {
      const i = childIndex(node, key);
      for (let j = 0; j < i; j++) before += node.sizes[j];
      node = node.children[i];
    }
    return before + lowerBound(node.keys, key);
  }

  /**
   * Appends to `out` the keys >= start and < end (every key from start when end is undefined) in ascending order, at
   * most `max` of them (a range read without a call per key); returns how many it appended.
   */
  collect(start: string, end: string | undefined, max: number, out: string[]): number {
    const before = out.length;
    collectFrom(this.#root, start, end, before + max, out);
    return out.length - before;
  }

  /** Visits keys >= start in ascending order until visit returns false. Do not modify the set while walking. */
  forEachFrom(start: string | undefined, visit: (key: string) => boolean): void {
    walk(this.#root, start, visit);
  }
}
