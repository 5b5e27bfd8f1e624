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
  // the last target called and its URL with the timeout query, reused while neither changes
  let last: { base: URL; seconds: number; url: URL } | undefined;
  const withTimeout = (base: URL, seconds: number): URL => {
    if (last?.base !== base || last.seconds !== seconds) last = { base, seconds, url: withTimeoutQuery(base, seconds) };
    return last.url;
  };
  return async (review, timeoutSeconds, signal) => {
    try {
      const target = await webhookTarget(cc, registry);
      return await postJson({ ...target, url: withTimeout(target.url, timeoutSeconds) }, review, timeoutSeconds * 1000, { signal });
    } catch (e) {
      if (!(e instanceof SharedCallError)) throw e;
      const shownUrl = withTimeoutQuery(shown, timeoutSeconds).href;
      // The shared client names the address it dialled; kube names the service's URL.
      const message = e.message.replace(/^Post "[^"]*"/, `Post ${JSON.stringify(shownUrl)}`);
      throw new WebhookCallError(`failed to call webhook: ${message}`);
    }
  };
}
