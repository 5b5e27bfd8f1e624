// kube-apiserver's etcd compactor (k8s.io/apiserver/pkg/storage/etcd3/compact.go): every interval each instance
// tries to bump the version of the key "compact_rev_key" from the version it last saw; the one that succeeds
// compacts etcd to the revision it observed one interval earlier, so history is kept for at least one interval
// and N instances compact once per interval between them. A loser learns the current version (and the revision
// last compacted, the key's value) and tries again next time.
import { int } from './etcd-client.ts';
import type { EtcdStorage } from './etcd-storage.ts';

export const COMPACT_REV_KEY = 'compact_rev_key';

export interface CompactorState {
  /** The version of compact_rev_key this instance last saw. */
  version: number;
  /** The etcd revision observed at the last attempt: the next compaction's target. */
  revision: number;
}

/** One attempt; returns the state for the next one. Throws when etcd is unreachable. */
export async function compactOnce(storage: EtcdStorage, state: CompactorState): Promise<CompactorState> {
  const key = Buffer.from(COMPACT_REV_KEY);
  const { kv, unary } = storage.connection;
  const res = await unary('nonRepeatable', (o) => kv.txn(
    {
      compare: [{ key, target: 'Version', result: 'Equal', version: state.version }],
      success: [{ request_put: { key, value: Buffer.from(String(state.revision)) } }],
      failure: [{ request_range: { key } }],
    },
    o,
  ));
  const current = int(res.header.revision);
  if (!res.succeeded) {
    const seen = res.responses[0]?.response_range?.kvs[0];
    // Another instance compacted: its target (the key's value) is the compacted revision.
    if (seen !== undefined && int(seen.value.toString()) > 0) storage.noteCompacted(storage.fromEtcdRevision(int(seen.value.toString())));
    return { version: seen ? int(seen.version) : 0, revision: current };
  }
  // kube does not compact on its first round (revision 0): it only records the revision to compact next time.
  if (state.revision > 0) {
    storage.noteCompacted(storage.fromEtcdRevision(state.revision));
    await unary('repeatable', (o) => kv.compact({ revision: state.revision, physical: false }, o));
  }
  return { version: state.version + 1, revision: current };
}

/** Starts the loop (interval ms > 0); returns the function that stops it. */
export function startEtcdCompactor(storage: EtcdStorage, intervalMs: number, onError: (err: unknown) => void): () => void {
  let state: CompactorState = { version: 0, revision: 0 };
  let stopped = false;
  let running = false;
  const tick = async () => {
    if (stopped || running) return;
    running = true;
    try {
      state = await compactOnce(storage, state);
    } catch (err) {
      if (!stopped && !/compacted/.test(String(err))) onError(err);
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
