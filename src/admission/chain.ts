// The admission chain: every enabled plugin's mutating phase in order, then (after the store's own validation)
// every validating phase in order. The first refusal ends the request.

import type { AdmissionAttributes, AdmissionChain, AdmissionPlugin } from './types.ts';

type Phase = (p: AdmissionPlugin, attrs: AdmissionAttributes) => void | Promise<void>;

/**
 * Runs the phase of each plugin from index `from` on, in order. Plugins with nothing to do answer synchronously, so
 * the chain only waits (and allocates promises) from the first plugin that has to.
 */
function runFrom(plugins: readonly AdmissionPlugin[], from: number, phase: Phase, attrs: AdmissionAttributes): void | Promise<void> {
  for (let i = from; i < plugins.length; i++) {
    const p = plugins[i]!;
    if (p.handles && !p.handles(attrs.operation)) continue;
    const pending = phase(p, attrs);
    if (pending) return pending.then(() => runFrom(plugins, i + 1, phase, attrs));
  }
}

const admitPhase: Phase = (p, attrs) => p.admit!(attrs);
const validatePhase: Phase = (p, attrs) => p.validate!(attrs);

export function createChain(plugins: readonly AdmissionPlugin[]): AdmissionChain {
  const mutating = plugins.filter((p) => p.admit);
  const validating = plugins.filter((p) => p.validate);
  return {
    plugins,
    admit: (attrs) => runFrom(mutating, 0, admitPhase, attrs),
    validate: (attrs) => runFrom(validating, 0, validatePhase, attrs),
    close() {
      for (const p of plugins) p.close?.();
    },
  };
}
