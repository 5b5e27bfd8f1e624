// Child process of crash.test.ts: writes a burst to a sqlite store and prints each acknowledged write
// ("<key>\t<revision>\t<i>"; the value is valueOf(i)) to stdout after the write resolves, until it is killed.
// Usage: node crash-writer.ts <database file> <writes>
import { openSqliteStorage } from './sqlite-storage.ts';

const [file, countArg] = process.argv.slice(2);
const storage = openSqliteStorage(file);
const total = Number(countArg);
const valueOf = (i: number): string => JSON.stringify({ i, padding: 'x'.repeat(2000) });
const mod = new Map<string, number>();

for (let i = 0; i < total; i++) {
  const key = `/crash/k${i % 50}`;
  const value = valueOf(i);
  const prev = mod.get(key);
  const kv = prev === undefined ? await storage.create(key, value) : await storage.update(key, value, prev);
  mod.set(key, kv.modRevision);
  // stdout is a pipe: synchronous on Linux, so a printed line means the write was acknowledged first.
  process.stdout.write(`${key}\t${kv.modRevision}\t${i}\n`);
}
await storage.close();
