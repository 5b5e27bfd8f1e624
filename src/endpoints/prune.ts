// Dropping fields the schema does not know, as decoding into kube's typed structs (or CRD pruning) does.
// Paths are the strict-decoding paths the schema check reports: "spec.foo", "spec.containers[0].bar".

type Step = string | number;

export function parseFieldPath(path: string): Step[] {
  const steps: Step[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) {
    if (m[1] !== undefined) steps.push(m[1]);
    else steps.push(Number(m[2]));
  }
  return steps;
}

/** Removes each path's last field from `obj` (in place); paths that do not resolve are ignored. */
export function pruneFields(obj: unknown, paths: readonly string[]): void {
  for (const path of paths) {
    const steps = parseFieldPath(path);
    if (steps.length === 0) continue;
    let node: unknown = obj;
    for (let i = 0; i < steps.length - 1 && node !== undefined && node !== null; i++) {
      const step = steps[i];
      node = typeof step === 'number' ? (Array.isArray(node) ? node[step] : undefined) : typeof node === 'object' ? (node as Record<string, unknown>)[step] : undefined;
    }
    const last = steps[steps.length - 1];
    if (node && typeof node === 'object' && !Array.isArray(node) && typeof last === 'string') delete (node as Record<string, unknown>)[last];
  }
}
