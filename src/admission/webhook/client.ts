// The transport of an admission webhook: the shared webhook client (src/webhook/client.ts: url, or a Service
// resolved through its Endpoints or ExternalName, caBundle, kept-alive connections) with what admission adds:
// kube's `?timeout=<n>s` query, the URL a service reference is shown as, and "failed to call webhook: ..." wording.

import { postJson, webhookTarget, WebhookCallError as SharedCallError, type WebhookClientConfig } from '../../webhook/client.ts';
import type { Registry } from '../../registry/types.ts';
import type { WebhookTransport } from './webhook.ts';

/** A failure to get an answer from a webhook (kube's ErrCallingWebhook reason). */
export class WebhookCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookCallError';
  }
}

export type ClientConfig = WebhookClientConfig;

/** The URL kube shows for a client config. */
export function displayUrlOf(cc: ClientConfig): string {
  if (cc.url) return cc.url;
  const s = cc.service ?? {};
  return `https://${s.name ?? ''}.${s.namespace ?? ''}.svc:${s.port ?? 443}${s.path ?? ''}`;
}

function withTimeoutQuery(url: URL, seconds: number): URL {
  const u = new URL(url.href);
  u.searchParams.set('timeout', `${seconds}s`);
  return u;
}

/** The transport of a clientConfig; a service is resolved on each call (configuration changes need no restart). */
export function httpsTransport(registry: Registry, cc: ClientConfig): WebhookTransport {
  const shown = new URL(displayUrlOf(cc));
  return async (review, timeoutSeconds, signal) => {
    const shownUrl = withTimeoutQuery(shown, timeoutSeconds).href;
    try {
      const target = await webhookTarget(cc, registry);
      return await postJson({ ...target, url: withTimeoutQuery(target.url, timeoutSeconds) }, review, timeoutSeconds * 1000, { signal });
    } catch (e) {
      if (!(e instanceof SharedCallError)) throw e;
      // The shared client names the address it dialled; kube names the service's URL.
      const message = e.message.replace(/^Post "[^"]*"/, `Post ${JSON.stringify(shownUrl)}`);
      throw new WebhookCallError(`failed to call webhook: ${message}`);
    }
  };
}
