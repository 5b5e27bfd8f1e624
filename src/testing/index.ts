// `capstan/testing`: test-runner helpers and the test controls' types.
//
//   import { capstanForNodeTest } from 'capstan/testing';
//   const capstan = await capstanForNodeTest({ isolation: 'cluster' });
//   test('...', async () => { const kc = new KubeConfig(); kc.loadFromString(capstan.kubeconfig); ... });

export { useCapstan, capstanForNodeTest, capstanForVitest, capstanForJest } from './runners.ts';
export type { CapstanFixture, Isolation, RunnerHooks, UseCapstanOptions } from './runners.ts';
export type { TestControls, ForkedServer, LogicalCluster, SnapshotInfo, ClockControls, FaultControls, RecordingControls } from './controls.ts';
export type { FaultAction, FaultRule, FaultHandle, FaultLogEntry, FaultView } from './faults.ts';
export type { RequestQuery, RequestRecord, AuditEventList } from './recorder.ts';
export { startCapstan } from '../cli/start.ts';
export type { Capstan, CapstanOptions } from '../cli/start.ts';
