// The audit flags (kube-apiserver's AuditOptions) and building the auditor from them: the policy file, the log
// backend, the webhook backend. Without a policy file nothing is recorded (kube warns when a backend is set).
// The auditor's modules load only when auditing is configured.

import type { Logger } from '../log.ts';
import type { Auditor } from './auditor.ts';
import type { AuditBackend } from './types.ts';

export interface AuditOptions {
  policyFile?: string;
  /** '-' for stdout. */
  logPath?: string;
  logMaxAgeDays?: number;
  logMaxBackups?: number;
  logMaxSizeMB?: number;
  webhookConfigFile?: string;
  webhookBatchMaxSize?: number;
  webhookBatchMaxWaitMs?: number;
}

/** AuditLogOptions.Validate / AuditWebhookOptions.Validate messages. */
export function validateAuditOptions(o: AuditOptions): string[] {
  const errors: string[] = [];
  if (o.logPath) {
    if ((o.logMaxAgeDays ?? 0) < 0) errors.push(`--audit-log-maxage ${o.logMaxAgeDays} can't be a negative number`);
    if ((o.logMaxBackups ?? 0) < 0) errors.push(`--audit-log-maxbackup ${o.logMaxBackups} can't be a negative number`);
    if ((o.logMaxSizeMB ?? 0) < 0) errors.push(`--audit-log-maxsize ${o.logMaxSizeMB} can't be a negative number`);
  }
  if (o.webhookConfigFile) {
    if (o.webhookBatchMaxSize !== undefined && o.webhookBatchMaxSize <= 0) errors.push(`invalid audit batch webhook config: max batch size must be a positive number, got ${o.webhookBatchMaxSize}`);
    if (o.webhookBatchMaxWaitMs !== undefined && o.webhookBatchMaxWaitMs <= 0) errors.push('invalid audit batch webhook config: max wait time must be a positive number');
  }
  return errors;
}

export async function buildAuditor(o: AuditOptions | undefined, log: Logger): Promise<Auditor | undefined> {
  if (!o || (!o.logPath && !o.webhookConfigFile)) return undefined;
  if (!o.policyFile) {
    if (o.logPath) log.warn('No audit policy file provided, no events will be recorded for log backend');
    if (o.webhookConfigFile) log.warn('No audit policy file provided, no events will be recorded for webhook backend');
    return undefined;
  }
  const [{ createAuditor }, { loadPolicyFile }] = await Promise.all([import('./auditor.ts'), import('./policy.ts')]);
  const policy = await loadPolicyFile(o.policyFile);
  const backends: AuditBackend[] = [];
  if (o.logPath) {
    const { createLogBackend } = await import('./log-backend.ts');
    backends.push(createLogBackend({ path: o.logPath, maxAgeDays: o.logMaxAgeDays, maxBackups: o.logMaxBackups, maxSizeMB: o.logMaxSizeMB }));
  }
  if (o.webhookConfigFile) {
    const { createWebhookBackend, loadWebhookKubeconfig } = await import('./webhook-backend.ts');
    const target = loadWebhookKubeconfig(o.webhookConfigFile);
    backends.push(createWebhookBackend({ target, maxBatchSize: o.webhookBatchMaxSize, maxWaitMs: o.webhookBatchMaxWaitMs, log }));
  }
  return createAuditor(policy, backends);
}
