// The admission chain: every enabled plugin's mutating phase in order, then (after the store's own validation)
// every validating phase in order. The first refusal ends the request.

import type { AdmissionAttributes, AdmissionChain, AdmissionPlugin } from './types.ts';

export function createChain(plugins: readonly AdmissionPlugin[]): AdmissionChain {
  const mutating = plugins.filter((p) => p.admit);
  const validating = plugins.filter((p) => p.validate);
  return {
    plugins,
    async admit(attrs: AdmissionAttributes) {
      for (const p of mutating) if (!p.handles || p.handles(attrs.operation)) await p.admit!(attrs);
    },
    async validate(attrs: AdmissionAttributes) {
      for (const p of validating) if (!p.handles || p.handles(attrs.operation)) await p.validate!(attrs);
    },
    close() {
      for (const p of plugins) p.close?.();
    },
  };
}
