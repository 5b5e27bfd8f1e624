// Simulated Jobs with kubectl, on a server of their own (the simulated workloads' other tests are in
// simulation.test.ts; the two files run side by side): a finished Job's TTL, Indexed and suspended Jobs, pods tracked
// with kube's finalizer, podFailurePolicy, the failure backoff on the server clock, backoffLimitPerIndex and
// successPolicy.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until } from './helpers.ts';

describe('simulated Jobs', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 2, podStartupMs: 20, jobPodRunMs: 50 } });
  });
  after(async () => s.close());

  test('a Job with ttlSecondsAfterFinished completes and is deleted with its pods its TTL later (kubectl wait --for=delete)', async () => {
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'brief' }, spec: { ttlSecondsAfterFinished: 3, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(job) });
    await s.kubectlOk(['wait', '--for=condition=Complete', 'job/brief', '--timeout=20s'], { timeoutMs: 30_000 });
    const completed = Date.now();
    await s.kubectlOk(['wait', '--for=delete', 'job/brief', '--timeout=20s'], { timeoutMs: 30_000 });
    // The condition's time has whole seconds, as kube's: the Job goes 2-3 s after it finished.
    assert.ok(Date.now() - completed >= 1500, `deleted ${Date.now() - completed} ms after it finished`);
    assert.equal(await s.kubectlOk(['get', 'pods', '-l', 'job-name=brief', '-o', 'name']), '');
  });

  test('an Indexed Job runs one pod per index with its completion index; a suspended Job waits and runs once resumed', async () => {
    const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'shards' }, spec: { completionMode: 'Indexed', completions: 3, parallelism: 2, template } }) });
    await s.kubectlOk(['wait', '--for=condition=Complete', 'job/shards', '--timeout=20s'], { timeoutMs: 30_000 });
    const job = JSON.parse(await s.kubectlOk(['get', 'job', 'shards', '-o', 'json']));
    assert.equal(job.status.completedIndexes, '0-2');
    assert.equal(job.status.succeeded, 3);
    assert.deepEqual(job.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]), [
      ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
      ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ]);
    const pods = JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'job-name=shards', '-o', 'json'])).items as { metadata: { name: string; annotations: Record<string, string> }; spec: { hostname: string; containers: { env: unknown[] }[] } }[];
    const byIndex = pods.map((p) => [p.metadata.annotations['batch.kubernetes.io/job-completion-index'], p.spec.hostname, p.metadata.name.startsWith(`shards-${p.metadata.annotations['batch.kubernetes.io/job-completion-index']}-`)]).sort();
    assert.deepEqual(byIndex, [['0', 'shards-0', true], ['1', 'shards-1', true], ['2', 'shards-2', true]]);
    assert.deepEqual(pods[0]!.spec.containers[0]!.env, [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } }]);

    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'held' }, spec: { suspend: true, template } }) });
    await new Promise((r) => setTimeout(r, 300));
    const held = JSON.parse(await s.kubectlOk(['get', 'job', 'held', '-o', 'json']));
    assert.equal(held.status.startTime, undefined);
    assert.deepEqual(held.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]), [['Suspended', 'True', 'JobSuspended', 'Job suspended']]);
    assert.equal(await s.kubectlOk(['get', 'pods', '-l', 'job-name=held', '-o', 'name']), '');
    await s.kubectlOk(['patch', 'job', 'held', '--type=merge', '-p', '{"spec":{"suspend":false}}']);
    await s.kubectlOk(['wait', '--for=condition=Complete', 'job/held', '--timeout=20s'], { timeoutMs: 30_000 });
    const resumed = JSON.parse(await s.kubectlOk(['get', 'job', 'held', '-o', 'json']));
    assert.equal(typeof resumed.status.startTime, 'string');
    assert.deepEqual(resumed.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason]), [
      ['Suspended', 'False', 'JobResumed'],
      ['SuccessCriteriaMet', 'True', 'CompletionsReached'],
      ['Complete', 'True', 'CompletionsReached'],
    ]);
    await s.kubectlOk(['delete', 'job', 'shards', 'held']);
  });

  test("a Job tracks its pods with kube's finalizer: counts kept in its status when finished pods go, a failed pod counted once and replaced, its pods let go when it is deleted", async () => {
    type Pod = { metadata: { name: string; finalizers?: string[] }; status: { phase: string } };
    const podsOf = async (job: string): Promise<Pod[]> => JSON.parse(await s.kubectlOk(['get', 'pods', '-l', `job-name=${job}`, '-o', 'json'])).items;
    const statusOf = async (job: string) => JSON.parse(await s.kubectlOk(['get', 'job', job, '-o', 'json'])).status;
    const brief = (p: Pod) => [p.metadata.name, p.status.phase, p.metadata.finalizers];
    const setPhase = (pod: string, phase: string) => s.kubectlOk(['patch', 'pod', pod, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase } })]);
    const settle = () => new Promise((r) => setTimeout(r, 300));
    const job = (name: string, spec: Record<string, unknown>, podSpec: Record<string, unknown> = {}) =>
      s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }], ...podSpec } } } }) });
    // Pods a scheduling gate holds Pending: their phases are the test's to set.
    const held = { schedulingGates: [{ name: 'example.com/hold' }] };

    // Run to completion: the pods lost the finalizer once counted; one deleted later stays counted.
    await job('counted', { completions: 2 });
    await s.kubectlOk(['wait', '--for=condition=Complete', 'job/counted', '--timeout=20s'], { timeoutMs: 30_000 });
    const ran = await podsOf('counted');
    assert.deepEqual(ran.map(brief), ran.map((p) => [p.metadata.name, 'Succeeded', undefined]));
    assert.equal(ran.length, 2);
    const complete = await statusOf('counted');
    assert.deepEqual([complete.succeeded, complete.failed, complete.uncountedTerminatedPods], [2, undefined, {}]);
    await s.kubectlOk(['delete', 'pod', ran[0]!.metadata.name]);
    await settle();
    assert.equal((await statusOf('counted')).succeeded, 2);
    assert.deepEqual((await podsOf('counted')).map((p) => p.metadata.name), [ran[1]!.metadata.name]);

    // A running Job: the active pod carries the finalizer; a succeeded pod deleted stays counted, and no pod replaces it.
    await job('tracked', { completions: 3, parallelism: 1, backoffLimit: 1 }, held);
    const [first] = await until('the first pod', async () => ((await podsOf('tracked')).length === 1 ? podsOf('tracked') : undefined));
    assert.deepEqual(brief(first!), [first!.metadata.name, 'Pending', ['batch.kubernetes.io/job-tracking']]);
    await setPhase(first!.metadata.name, 'Succeeded');
    const counted = async (succeeded: number, failed: number | undefined, pods: number) => {
      const [status, all] = [await statusOf('tracked'), await podsOf('tracked')];
      return status.succeeded === succeeded && status.failed === failed && all.length === pods && all.filter((p) => p.metadata.finalizers).length === 1 ? { status, all } : undefined;
    };
    const afterSuccess = await until('the succeeded pod counted', () => counted(1, undefined, 2));
    assert.deepEqual(afterSuccess.status.uncountedTerminatedPods, {});
    assert.equal(afterSuccess.status.active, 1);
    const second = afterSuccess.all.find((p) => p.metadata.name !== first!.metadata.name)!;
    assert.deepEqual(afterSuccess.all.map(brief).sort(), [[first!.metadata.name, 'Succeeded', undefined], [second.metadata.name, 'Pending', ['batch.kubernetes.io/job-tracking']]].sort());
    await s.kubectlOk(['delete', 'pod', first!.metadata.name]);
    await settle();
    assert.equal((await statusOf('tracked')).succeeded, 1);
    assert.deepEqual((await podsOf('tracked')).map((p) => p.metadata.name), [second.metadata.name]);

    // A failed pod is counted once (backoffLimit 1 allows it) and replaced once kube's pod failure backoff (10 s on
    // the server clock) is over; deleted, it stays counted.
    // Failed now on the server clock (Ready=False): without a finish time kube's backoff counts from the pod's
    // creation, which real time under load may already have put 10 s behind.
    const failedAt = s.clock!.state().now.replace(/\.\d+Z$/, 'Z');
    await s.kubectlOk(['patch', 'pod', second.metadata.name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Failed', conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: failedAt }] } })]);
    await until('the failed pod counted', async () => ((await statusOf('tracked')).failed === 1 ? true : undefined));
    await settle();
    assert.equal((await podsOf('tracked')).length, 1);
    s.clock!.advance('11s');
    const afterFailure = await until('the failed pod replaced', () => counted(1, 1, 2));
    assert.deepEqual(afterFailure.status.uncountedTerminatedPods, {});
    const third = afterFailure.all.find((p) => p.metadata.name !== second.metadata.name)!;
    assert.deepEqual(afterFailure.all.map(brief).sort(), [[second.metadata.name, 'Failed', undefined], [third.metadata.name, 'Pending', ['batch.kubernetes.io/job-tracking']]].sort());
    await s.kubectlOk(['delete', 'pod', second.metadata.name]);
    await settle();
    const kept = await statusOf('tracked');
    assert.deepEqual([kept.succeeded, kept.failed, kept.active], [1, 1, 1]);
    assert.deepEqual((await podsOf('tracked')).map((p) => p.metadata.name), [third.metadata.name]);

    // Deleted in the foreground (as ttlSecondsAfterFinished deletes), the Job lets its pod go, and both are gone.
    await s.kubectlOk(['delete', 'job', 'tracked', '--cascade=foreground', '--timeout=20s'], { timeoutMs: 30_000 });
    assert.deepEqual(await podsOf('tracked'), []);

    // Past backoffLimit the Job fails, and its failed pod is not replaced.
    await job('fragile', { backoffLimit: 0 }, held);
    const [only] = await until('its pod', async () => ((await podsOf('fragile')).length === 1 ? podsOf('fragile') : undefined));
    await setPhase(only!.metadata.name, 'Failed');
    await s.kubectlOk(['wait', '--for=condition=Failed', 'job/fragile', '--timeout=20s'], { timeoutMs: 30_000 });
    const failedJob = await statusOf('fragile');
    assert.deepEqual(failedJob.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason]), [
      ['FailureTarget', 'True', 'BackoffLimitExceeded'],
      ['Failed', 'True', 'BackoffLimitExceeded'],
    ]);
    assert.deepEqual([failedJob.failed, failedJob.succeeded, failedJob.active, failedJob.uncountedTerminatedPods], [1, undefined, undefined, {}]);
    await settle();
    assert.deepEqual((await podsOf('fragile')).map(brief), [[only!.metadata.name, 'Failed', undefined]]);
    await s.kubectlOk(['delete', 'job', 'counted', 'fragile', '--cascade=foreground', '--timeout=20s'], { timeoutMs: 30_000 });
    assert.deepEqual([...(await podsOf('counted')), ...(await podsOf('fragile'))], []);
  });

  test("a Job's podFailurePolicy: an Ignore rule's failure is not counted and its pod replaced, one matching no rule counts toward backoffLimit, a FailJob rule fails the Job with kube's reason and message", async () => {
    type Pod = { metadata: { name: string; finalizers?: string[] }; status: { phase: string } };
    const podsOf = async (job: string): Promise<Pod[]> => JSON.parse(await s.kubectlOk(['get', 'pods', '-l', `job-name=${job}`, '-o', 'json'])).items;
    const statusOf = async (job: string) => JSON.parse(await s.kubectlOk(['get', 'job', job, '-o', 'json'])).status;
    const brief = (p: Pod) => [p.metadata.name, p.status.phase, p.metadata.finalizers];
    // The status a kubelet writes for a pod whose container exited with the code (at the server clock's time).
    const fail = (pod: string, exitCode: number) => {
      const at = s.clock!.state().now.replace(/\.\d+Z$/, 'Z');
      const terminated = { exitCode, reason: 'Error', startedAt: at, finishedAt: at };
      const status = { phase: 'Failed', containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: false, restartCount: 0, started: false, state: { terminated } }] };
      return s.kubectlOk(['patch', 'pod', pod, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    };
    const podFailurePolicy = {
      rules: [
        { action: 'FailJob', onExitCodes: { containerName: 'c', operator: 'In', values: [42] } },
        { action: 'Ignore', onExitCodes: { operator: 'In', values: [1] } },
      ],
    };
    // Pods a scheduling gate holds Pending: their phases are the test's to set.
    const job = (name: string, backoffLimit: number) =>
      s.kubectlOk(['create', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name },
          spec: { backoffLimit, podFailurePolicy, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }], schedulingGates: [{ name: 'example.com/hold' }] } } },
        }),
      });
    const pods = (job: string, n: number) => until(`${n} pods of ${job}`, async () => ((await podsOf(job)).length === n ? podsOf(job) : undefined));
    const newPod = (all: Pod[], seen: Pod[]) => all.find((p) => !seen.some((q) => q.metadata.name === p.metadata.name))!;
    const tracking = ['batch.kubernetes.io/job-tracking'];

    await job('policed', 1);
    const [first] = await pods('policed', 1);
    // Exit code 1 matches the Ignore rule: the pod is let go uncounted, and replaced after the backoff (an ignored
    // failure backs off too).
    await fail(first!.metadata.name, 1);
    await until('the ignored pod let go', async () => ((await podsOf('policed'))[0]?.metadata.finalizers === undefined ? true : undefined));
    s.clock!.advance('11s');
    const afterIgnore = await pods('policed', 2);
    const second = newPod(afterIgnore, [first!]);
    assert.deepEqual(afterIgnore.map(brief).sort(), [[first!.metadata.name, 'Failed', undefined], [second.metadata.name, 'Pending', tracking]].sort());
    const ignored = await until('the ignored pod let go', async () => {
      const st = await statusOf('policed');
      return (await podsOf('policed')).find((p) => p.metadata.name === first!.metadata.name)?.metadata.finalizers === undefined && st.active === 1 ? st : undefined;
    });
    assert.deepEqual([ignored.failed, ignored.uncountedTerminatedPods, ignored.conditions], [undefined, {}, undefined]);

    // Exit code 2 matches no rule: counted (backoffLimit 1 allows it) and replaced after the backoff, doubled for
    // the second failure since the last success.
    await fail(second.metadata.name, 2);
    await until('the failure counted', async () => ((await statusOf('policed')).failed === 1 ? true : undefined));
    s.clock!.advance('11s');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await podsOf('policed')).length, 2);
    s.clock!.advance('10s');
    const afterCount = await pods('policed', 3);
    const third = newPod(afterCount, [first!, second]);
    const counted = await until('the failure counted', async () => {
      const st = await statusOf('policed');
      return st.failed === 1 && st.active === 1 ? st : undefined;
    });
    assert.deepEqual([counted.uncountedTerminatedPods, counted.conditions], [{}, undefined]);

    // Exit code 42 of container c matches the FailJob rule at index 0: the Job fails at once, past no backoffLimit.
    await fail(third.metadata.name, 42);
    await s.kubectlOk(['wait', '--for=condition=Failed', 'job/policed', '--timeout=20s'], { timeoutMs: 30_000 });
    const failedJob = await statusOf('policed');
    const message = `Container c for pod default/${third.metadata.name} failed with exit code 42 matching FailJob rule at index 0`;
    assert.deepEqual(failedJob.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]), [
      ['FailureTarget', 'True', 'PodFailurePolicy', message],
      ['Failed', 'True', 'PodFailurePolicy', message],
    ]);
    assert.deepEqual([failedJob.failed, failedJob.succeeded, failedJob.active, failedJob.uncountedTerminatedPods], [2, undefined, undefined, {}]);
    assert.deepEqual((await podsOf('policed')).map(brief).sort(), [first!, second, third].map((p) => [p.metadata.name, 'Failed', undefined]).sort());

    // With backoffLimit 0, a failure that matches no rule fails the Job as without a policy.
    await job('strict', 0);
    const [only] = await pods('strict', 1);
    await fail(only!.metadata.name, 3);
    await s.kubectlOk(['wait', '--for=condition=Failed', 'job/strict', '--timeout=20s'], { timeoutMs: 30_000 });
    const strict = await statusOf('strict');
    assert.deepEqual(strict.conditions.map((c: Record<string, string>) => [c.type, c.reason, c.message]), [
      ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ]);
    assert.equal(strict.failed, 1);
    await s.kubectlOk(['delete', 'job', 'policed', 'strict', '--cascade=foreground', '--timeout=20s'], { timeoutMs: 30_000 });
    assert.deepEqual([...(await podsOf('policed')), ...(await podsOf('strict'))], []);
  });

  describe("a Job's pod failure backoff, backoffLimitPerIndex and successPolicy", () => {
    type Pod = { metadata: { name: string; finalizers?: string[]; annotations: Record<string, string> }; status: { phase: string } };
    type Condition = { type: string; status: string; reason: string; message: string };
    const podsOf = async (job: string): Promise<Pod[]> => JSON.parse(await s.kubectlOk(['get', 'pods', '-l', `job-name=${job}`, '-o', 'json'])).items;
    const statusOf = async (job: string) => JSON.parse(await s.kubectlOk(['get', 'job', job, '-o', 'json'])).status;
    const pods = (job: string, n: number) => until(`${n} pods of ${job}`, async () => ((await podsOf(job)).length === n ? podsOf(job) : undefined));
    const settle = () => new Promise((r) => setTimeout(r, 300));
    const indexOf = (p: Pod) => p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
    const failureCounts = (p: Pod) => [p.metadata.annotations['batch.kubernetes.io/job-index-failure-count'], p.metadata.annotations['batch.kubernetes.io/job-index-ignored-failure-count']];
    const newPods = (all: Pod[], seen: Pod[]) => all.filter((p) => !seen.some((q) => q.metadata.name === p.metadata.name));
    const ofIndex = (all: Pod[], index: string) => all.filter((p) => indexOf(p) === index);
    const brief = (c: Condition) => [c.type, c.status, c.reason, c.message];
    // The status a kubelet writes for a pod whose container exited with the code, at the server clock's time.
    const finish = (pod: Pod, exitCode: number) => {
      const at = s.clock!.state().now.replace(/\.\d+Z$/, 'Z');
      const terminated = { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: at, finishedAt: at };
      const status = { phase: exitCode === 0 ? 'Succeeded' : 'Failed', containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: false, restartCount: 0, started: false, state: { terminated } }] };
      return s.kubectlOk(['patch', 'pod', pod.metadata.name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    };
    // Pods a scheduling gate holds Pending: their phases are the test's to set.
    const job = (name: string, spec: Record<string, unknown>) =>
      s.kubectlOk(['create', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name },
          spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }], schedulingGates: [{ name: 'example.com/hold' }] } } },
        }),
      });
    const statusWith = (name: string, what: string, check: (status: Record<string, unknown>) => boolean) =>
      until(what, async () => {
        const st = await statusOf(name);
        return check(st) ? st : undefined;
      });
    const remove = (...names: string[]) => s.kubectlOk(['delete', 'job', ...names, '--cascade=foreground', '--timeout=20s'], { timeoutMs: 30_000 });

    test('a failed pod is replaced only once the backoff is over on the server clock: 10 s after a failure, 20 s after the second', async () => {
      await job('patient', { backoffLimit: 3 });
      const [first] = await pods('patient', 1);
      await finish(first!, 1);
      await statusWith('patient', 'the failure counted', (st) => st.failed === 1);
      await settle();
      assert.equal((await podsOf('patient')).length, 1);
      // The clock's move syncs the Job at once: no real 10 s wait.
      const moved = Date.now();
      s.clock!.advance('11s');
      const [second] = newPods(await pods('patient', 2), [first!]);
      assert.ok(Date.now() - moved < 5000, `replaced ${Date.now() - moved} ms after the clock moved`);
      await finish(second!, 1);
      await statusWith('patient', 'the second failure counted', (st) => st.failed === 2);
      s.clock!.advance('11s');
      await settle();
      assert.equal((await podsOf('patient')).length, 2);
      s.clock!.advance('10s');
      const [third] = newPods(await pods('patient', 3), [first!, second!]);
      assert.equal(third!.status.phase, 'Pending');
      // A success resets the count: the Job completes, with its failures counted.
      await finish(third!, 0);
      await s.kubectlOk(['wait', '--for=condition=Complete', 'job/patient', '--timeout=20s'], { timeoutMs: 30_000 });
      const done = await statusOf('patient');
      assert.deepEqual([done.succeeded, done.failed, done.active], [1, 2, undefined]);
      await remove('patient');
    });

    test('an Indexed Job with backoffLimitPerIndex 0: the index whose pod failed is failed at once and not retried, the others complete, and the Job fails with FailedIndexes', async () => {
      await job('per-index', { completionMode: 'Indexed', completions: 3, parallelism: 3, backoffLimitPerIndex: 0 });
      const all = await pods('per-index', 3);
      assert.deepEqual(all.map((p) => [indexOf(p), ...failureCounts(p)]).sort(), [['0', '0', undefined], ['1', '0', undefined], ['2', '0', undefined]]);
      const running = await statusOf('per-index');
      assert.equal(running.failedIndexes, '');
      await finish(ofIndex(all, '1')[0]!, 1);
      const failedIndex = await statusWith('per-index', 'index 1 failed', (st) => st.failedIndexes === '1' && st.failed === 1);
      assert.deepEqual([failedIndex.active, failedIndex.conditions], [2, undefined]);
      s.clock!.advance('11s');
      await settle();
      assert.equal((await podsOf('per-index')).length, 3);
      await finish(ofIndex(all, '0')[0]!, 0);
      await finish(ofIndex(all, '2')[0]!, 0);
      await s.kubectlOk(['wait', '--for=condition=Failed', 'job/per-index', '--timeout=20s'], { timeoutMs: 30_000 });
      const failed = await statusOf('per-index');
      assert.deepEqual(failed.conditions.map(brief), [
        ['FailureTarget', 'True', 'FailedIndexes', 'Job has failed indexes'],
        ['Failed', 'True', 'FailedIndexes', 'Job has failed indexes'],
      ]);
      assert.deepEqual([failed.failedIndexes, failed.completedIndexes, failed.succeeded, failed.failed, failed.active], ['1', '0,2', 2, 1, undefined]);
      await remove('per-index');
    });

    test("backoffLimitPerIndex 1: a failed index is retried after its own backoff with the failure counted in its pod's annotation; past maxFailedIndexes the Job fails with MaxFailedIndexesExceeded", async () => {
      await job('few-failures', { completionMode: 'Indexed', completions: 4, parallelism: 4, backoffLimitPerIndex: 1, maxFailedIndexes: 1 });
      const firsts = await pods('few-failures', 4);
      await finish(ofIndex(firsts, '0')[0]!, 1);
      await finish(ofIndex(firsts, '1')[0]!, 1);
      // The failed pods keep the finalizer until their replacements, which take the index's failure count from them, exist.
      await until('the failures seen', async () => ((await podsOf('few-failures')).filter((p) => p.status.phase === 'Failed').length === 2 ? true : undefined));
      await settle();
      const waiting = await podsOf('few-failures');
      assert.deepEqual(waiting.filter((p) => p.status.phase === 'Failed').map((p) => p.metadata.finalizers), [['batch.kubernetes.io/job-tracking'], ['batch.kubernetes.io/job-tracking']]);
      assert.equal(waiting.length, 4);
      assert.deepEqual([(await statusOf('few-failures')).failed, (await statusOf('few-failures')).failedIndexes], [undefined, '']);
      s.clock!.advance('11s');
      const retries = newPods(await pods('few-failures', 6), firsts);
      assert.deepEqual(retries.map((p) => [indexOf(p), ...failureCounts(p)]).sort(), [['0', '1', undefined], ['1', '1', undefined]]);
      await statusWith('few-failures', 'the first failures counted', (st) => st.failed === 2);
      // The second failure of index 0 fails it: one failed index is within maxFailedIndexes, and it gets no new pod.
      await finish(ofIndex(retries, '0')[0]!, 1);
      const oneFailed = await statusWith('few-failures', 'index 0 failed', (st) => st.failedIndexes === '0' && st.failed === 3);
      assert.equal(oneFailed.conditions, undefined);
      s.clock!.advance('30s');
      await settle();
      assert.equal((await podsOf('few-failures')).length, 6);
      await finish(ofIndex(retries, '1')[0]!, 1);
      await s.kubectlOk(['wait', '--for=condition=Failed', 'job/few-failures', '--timeout=20s'], { timeoutMs: 30_000 });
      const failed = await statusOf('few-failures');
      const message = 'Job has exceeded the specified maximal number of failed indexes';
      assert.deepEqual(failed.conditions.map(brief), [
        ['FailureTarget', 'True', 'MaxFailedIndexesExceeded', message],
        ['Failed', 'True', 'MaxFailedIndexesExceeded', message],
      ]);
      // Indexes 2 and 3 were still running: deleted, and counted as failed with the Job.
      assert.deepEqual([failed.failedIndexes, failed.completedIndexes, failed.failed, failed.active, failed.uncountedTerminatedPods], ['0,1', undefined, 6, undefined, {}]);
      assert.deepEqual((await podsOf('few-failures')).map((p) => p.status.phase).sort(), ['Failed', 'Failed', 'Failed', 'Failed']);
      await remove('few-failures');
    });

    test("a podFailurePolicy's FailIndex rule fails the index at once, an Ignore rule's failure retries it with the ignored-failure count", async () => {
      const podFailurePolicy = {
        rules: [
          { action: 'FailIndex', onExitCodes: { containerName: 'c', operator: 'In', values: [42] } },
          { action: 'Ignore', onExitCodes: { operator: 'In', values: [1] } },
        ],
      };
      await job('fail-index', { completionMode: 'Indexed', completions: 2, parallelism: 2, backoffLimitPerIndex: 2, podFailurePolicy });
      const firsts = await pods('fail-index', 2);
      await finish(ofIndex(firsts, '0')[0]!, 42);
      await finish(ofIndex(firsts, '1')[0]!, 1);
      await statusWith('fail-index', 'index 0 failed', (st) => st.failedIndexes === '0' && st.failed === 1);
      await settle();
      assert.equal((await podsOf('fail-index')).length, 2);
      s.clock!.advance('11s');
      const [retry] = newPods(await pods('fail-index', 3), firsts);
      assert.deepEqual([indexOf(retry!), ...failureCounts(retry!)], ['1', '0', '1']);
      await finish(retry!, 0);
      await s.kubectlOk(['wait', '--for=condition=Failed', 'job/fail-index', '--timeout=20s'], { timeoutMs: 30_000 });
      const failed = await statusOf('fail-index');
      assert.deepEqual(failed.conditions.map(brief), [
        ['FailureTarget', 'True', 'FailedIndexes', 'Job has failed indexes'],
        ['Failed', 'True', 'FailedIndexes', 'Job has failed indexes'],
      ]);
      // The ignored failure is not counted.
      assert.deepEqual([failed.failedIndexes, failed.completedIndexes, failed.succeeded, failed.failed], ['0', '1', 1, 1]);
      await remove('fail-index');
    });

    test("an Indexed Job's successPolicy: once a rule is met the Job gets SuccessCriteriaMet, its other pods are deleted, then it is Complete with kube's reason and message", async () => {
      const successPolicy = { rules: [{ succeededCount: 3 }, { succeededIndexes: '0-1', succeededCount: 1 }] };
      await job('lenient', { completionMode: 'Indexed', completions: 3, parallelism: 3, successPolicy });
      const all = await pods('lenient', 3);
      await finish(ofIndex(all, '0')[0]!, 0);
      await s.kubectlOk(['wait', '--for=condition=Complete', 'job/lenient', '--timeout=20s'], { timeoutMs: 30_000 });
      const done = await statusOf('lenient');
      assert.deepEqual(done.conditions.map(brief), [
        ['SuccessCriteriaMet', 'True', 'SuccessPolicy', 'Matched rules at index 1'],
        ['Complete', 'True', 'SuccessPolicy', 'Matched rules at index 1'],
      ]);
      assert.deepEqual([done.completedIndexes, done.succeeded, done.failed, done.active, done.terminating, done.uncountedTerminatedPods], ['0', 1, undefined, undefined, 0, {}]);
      assert.equal(typeof done.completionTime, 'string');
      // Indexes 1 and 2 never ran to completion: their pods are gone.
      assert.deepEqual((await podsOf('lenient')).map((p) => [indexOf(p), p.status.phase]), [['0', 'Succeeded']]);
      await remove('lenient');
    });
  });
});
