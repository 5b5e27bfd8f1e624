// Which environment an expression compiles in (kube's environment.Type). kube 1.31 compiles an expression a write
// brings in for the first time in the environment of its compatibility version, 1.30 (DefaultCompatibilityVersion),
// so that a server one version older still accepts it; expressions the stored object already held, and every
// evaluation, get 1.31's. Kept apart from ./environment.ts, which loads the CEL runtime.

export type EnvironmentType = 'new' | 'stored';

/** Stored when the old object held the expression, or when nothing says which ones a write brings in. */
export function environmentIn(preexisting: ReadonlySet<string> | undefined, expression: unknown): EnvironmentType {
  return preexisting === undefined || (typeof expression === 'string' && preexisting.has(expression)) ? 'stored' : 'new';
}
