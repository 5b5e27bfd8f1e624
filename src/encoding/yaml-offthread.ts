// Reading YAML request bodies without holding the event loop: small, shallow bodies are parsed in place; large ones
// (and ones too deep for the main thread's stack) go to one worker thread with a deep stack. The result is kept
// for readYaml, so the synchronous decoding paths stay synchronous: await prepareYaml(text), then readYaml(text).

import type { Worker } from 'node:worker_threads';
import type { YamlAnswer, YamlJob } from './yaml-worker.ts';
import { parseYaml, YamlSyntaxError, type ParsedYaml } from './yaml.ts';

/** Bodies from this size on are parsed off the event loop (the YAML reader takes ~0.25 ms per KiB). */
const OFF_THREAD_BYTES = 16 * 1024;
/** Enough stack for 10000 nested collections in the composer and in toJS. */
const WORKER_STACK_MB = 256;
/** Prepared results waiting for their request's decode; a request that fails in between leaves at most this many. */
const MAX_PREPARED = 16;

type Outcome = { parsed: ParsedYaml } | { error: YamlSyntaxError };

const prepared = new Map<string, Outcome>();
let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, (answer: YamlAnswer) => void>();

function yamlWorker(): Worker {
  if (worker) return worker;
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  // node:worker_threads is loaded with the first large body rather than at start-up.
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const w = new Worker(new URL(`./yaml-worker${ext}`, import.meta.url), { resourceLimits: { stackSizeMb: WORKER_STACK_MB } });
  w.on('message', (answer: YamlAnswer) => {
    const done = pending.get(answer.id);
    pending.delete(answer.id);
    if (pending.size === 0) w.unref();
    done?.(answer);
  });
  const fail = (err: Error): void => {
    worker = undefined;
    for (const [id, done] of pending) done({ id, failure: err.message });
    pending.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`the YAML worker exited with code ${code}`)));
  // Held only while jobs are pending (unref after the listeners: attaching one refs the worker again).
  w.unref();
  worker = w;
  return w;
}

function parseOffThread(text: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, (answer) => {
      if ('json' in answer) resolve({ parsed: { value: JSON.parse(answer.json) as unknown, duplicates: answer.duplicates } });
      else if ('syntaxError' in answer) resolve({ error: new YamlSyntaxError(answer.syntaxError) });
      else reject(new Error(answer.failure));
    });
    const w = yamlWorker();
    w.ref();
    w.postMessage({ id, text } satisfies YamlJob);
  });
}

function overflowed(e: unknown): boolean {
  return e instanceof RangeError || (e instanceof YamlSyntaxError && e.message.includes('Maximum call stack size exceeded'));
}

/** Parses `text` (off the event loop when large or deep) and keeps the outcome for the next readYaml(text). */
export async function prepareYaml(text: string): Promise<void> {
  let outcome: Outcome;
  if (text.length < OFF_THREAD_BYTES) {
    try {
      outcome = { parsed: parseYaml(text) };
    } catch (e) {
      if (overflowed(e)) outcome = await parseOffThread(text);
      else if (e instanceof YamlSyntaxError) outcome = { error: e };
      else throw e;
    }
  } else outcome = await parseOffThread(text);
  if (prepared.size >= MAX_PREPARED) prepared.delete(prepared.keys().next().value!);
  prepared.set(text, outcome);
}

/** parseYaml(text), taking the outcome prepareYaml(text) kept when there is one. */
export function readYaml(text: string): ParsedYaml {
  const outcome = prepared.get(text);
  if (!outcome) return parseYaml(text);
  prepared.delete(text);
  if ('error' in outcome) throw outcome.error;
  return outcome.parsed;
}
