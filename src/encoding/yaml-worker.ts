// The YAML reader's thread: parses request bodies with parseYaml under a deep stack, so a large body does not hold
// the event loop and a document nested as deep as go-yaml allows (10000 levels) does not exhaust the call stack.
// Answers with the value as JSON text (JSON.parse reads any depth; structured cloning does not).

import { parentPort } from 'node:worker_threads';
import { parseYaml, YamlSyntaxError } from './yaml.ts';

export interface YamlJob {
  readonly id: number;
  readonly text: string;
}

export type YamlAnswer =
  | { readonly id: number; readonly json: string; readonly duplicates: string[] }
  | { readonly id: number; readonly syntaxError: string }
  | { readonly id: number; readonly failure: string };

parentPort?.on('message', (job: YamlJob) => {
  let answer: YamlAnswer;
  try {
    const parsed = parseYaml(job.text);
    answer = { id: job.id, json: JSON.stringify(parsed.value ?? null), duplicates: parsed.duplicates };
  } catch (e) {
    answer = e instanceof YamlSyntaxError ? { id: job.id, syntaxError: e.message } : { id: job.id, failure: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(answer);
});
