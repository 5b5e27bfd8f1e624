// CEL on first use. The CEL runtime (@bufbuild/cel with its protobuf and RE2 modules) costs about 60 ms and 30 MB
// to load, and most servers never compile an expression, so nothing loads it at start-up: callers reach CEL through
// cel(), which loads ./index.ts the first time an expression is compiled (evaluation always follows a compile).
// Callers compile synchronously (CRD validation, admission and auth configuration), hence require(): Node loads an
// ES module graph without top-level await synchronously that way, the same module instances an import() would give.

import { createRequire } from 'node:module';

type Cel = typeof import('./index.ts');

// ./index.ts beside this file in the sources; in the bundle (scripts/build.ts), its entry dist/cel.js beside every chunk.
const INDEX = import.meta.url.endsWith('.ts') ? './index.ts' : './cel.js';

let loaded: Cel | undefined;

export function cel(): Cel {
  return (loaded ??= createRequire(import.meta.url)(INDEX) as Cel);
}
