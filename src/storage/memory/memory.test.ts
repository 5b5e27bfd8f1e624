import { runStorageConformance } from '../conformance.ts';
import { createMemoryStorage } from './memory-storage.ts';

runStorageConformance('memory', async () => createMemoryStorage());
// A tiny replay page makes every replay span many turns, so the replay/live hand-over is exercised hard.
runStorageConformance('memory (replay page 7)', async () => createMemoryStorage({ replayPageSize: 7 }));
