// Where Capstan's storage keys live in etcd: keys under `local` (the registry root, "/registry") are stored under
// `remote` (--etcd-prefix) instead, byte for byte the rest. Keys outside `local` are refused.

export interface KeySpace {
  /** The etcd key of a storage key. */
  toRemote(key: string): Buffer;
  /** The storage key of an etcd key; undefined when it lies outside the remote root. */
  toLocal(remote: Buffer): string | undefined;
  /**
   * The etcd byte range [start, end) of the storage keys starting with prefix; undefined when no storage key can
   * start with it.
   */
  prefixRange(prefix: string): { start: Buffer; end: Buffer } | undefined;
}

/** The smallest byte string greater than every string that starts with prefix ([0] means "to the end"). */
export function bytePrefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

export function createKeySpace(local: string, remote: string): KeySpace {
  const remoteRoot = Buffer.from(remote, 'utf8');
  const toRemote = (key: string): Buffer => {
    if (!key.startsWith(local)) throw new Error(`storage key ${JSON.stringify(key)} lies outside ${JSON.stringify(local)}`);
    return Buffer.from(remote + key.slice(local.length), 'utf8');
  };
  return {
    toRemote,
    toLocal(buf) {
      if (buf.length < remoteRoot.length || !buf.subarray(0, remoteRoot.length).equals(remoteRoot)) return undefined;
      return local + buf.subarray(remoteRoot.length).toString('utf8');
    },
    prefixRange(prefix) {
      let start: Buffer;
      if (prefix.startsWith(local)) start = toRemote(prefix);
      else if (local.startsWith(prefix)) start = remoteRoot; // a prefix of the root itself: every key
      else return undefined;
      return { start: start.length === 0 ? Buffer.from([0]) : start, end: start.length === 0 ? Buffer.from([0]) : bytePrefixEnd(start) };
    },
  };
}
