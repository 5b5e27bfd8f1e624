// A RequestContext for strategy tests.

import type { RequestContext } from '../types.ts';

export const testContext: RequestContext = {
  user: { name: 'admin', groups: ['system:masters'] },
  namespace: 'default',
  dryRun: false,
  warnings: [],
};
