// Two Capstan instances on one real etcd member, started by the test: the HA suites' setup.
import { startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd/test-cluster.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './helpers.ts';

export interface HaPair {
  readonly etcd: EtcdCluster;
  /** Started first: it takes the controller-manager Lease before b starts (start-up waits for the first round). */
  readonly a: TestServer;
  readonly b: TestServer;
  close(): Promise<void>;
}

/** Leader election timings scaled down from kube's 15 s / 10 s / 2 s so takeovers stay short. */
const LEADER_ELECTION = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };

export async function startHaPair(options: TestServerOptions = {}): Promise<HaPair> {
  const etcd = await startEtcdCluster(1);
  const etcdOptions = { servers: etcd.clientUrls, prefix: '/registry', compactionIntervalMs: 0 };
  const started: TestServer[] = [];
  try {
    for (let i = 0; i < 2; i++) started.push(await startTestServer({ storageBackend: 'etcd3', etcd: etcdOptions, leaderElection: LEADER_ELECTION, ...options }));
  } catch (e) {
    for (const s of started) await s.close();
    await etcd.close();
    throw e;
  }
  const [a, b] = started as [TestServer, TestServer];
  return {
    etcd,
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await etcd.close();
    },
  };
}
