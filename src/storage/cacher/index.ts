// The watch cache: one per resource prefix, kind-agnostic (see types.ts for the contract).
export { createCacher } from './cacher.ts';
export { cacherStats, type CacherStats } from './stats.ts';
export * from './types.ts';
