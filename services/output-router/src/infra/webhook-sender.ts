/**
 * Webhook deliveries: a JSON POST signed with HMAC-SHA256 of the body
 * (`X-AF-Signature: sha256=<hex>`), the delivery key in `X-AF-Delivery`
 * (receivers de-duplicate by it), retried with exponential backoff on
 * network errors, 429 and 5xx. Every address the host resolves to passes
 * the shared SSRF policy (@af/egress) inside the socket's own lookup, so the
 * address checked is the address connected to (no DNS rebinding window).
 */
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import { isIP } from 'node:net';
import https from 'node:https';
import { AppError } from '@af/service-kit';
import { WEBHOOK_EGRESS } from '../domain/webhook-egress.js';
import { decideEgress, egressPolicyFrom, egressRefusalMessage, type EgressPolicy } from '@af/egress';

export interface WebhookOptions {
  allow: string;
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
}

export interface WebhookResult {
  status: number;
  attempts: number;
}

export class WebhookSender {
  private readonly policy: EgressPolicy;

  constructor(private readonly opts: WebhookOptions) {
    this.policy = egressPolicyFrom(opts.allow, WEBHOOK_EGRESS);
  }

  async send(
    url: string,
    body: unknown,
    headers: { deliveryKey: string; secret?: string },
    signal?: AbortSignal,
  ): Promise<WebhookResult> {
    const text = JSON.stringify(body);
    const h: Record<string, string> = {
      'content-type': 'application/json',
      'x-af-delivery': headers.deliveryKey,
      'user-agent': 'agent-factory-output-router',
    };
    if (headers.secret)
      h['x-af-signature'] = `sha256=${createHmac('sha256', headers.secret).update(text).digest('hex')}`;
    let last: unknown;
    for (let attempt = 1; attempt <= this.opts.attempts; attempt++) {
      if (signal?.aborted) break;
      try {
        const status = await this.post(url, text, h);
        if (status >= 200 && status < 300) return { status, attempts: attempt };
        last = new AppError(
          status === 429 || status >= 500 ? 'UNAVAILABLE' : 'FAILED_PRECONDITION',
          `webhook answered HTTP ${status}`,
        );
        if (status !== 429 && status < 500) throw last;
      } catch (err) {
        if (err instanceof AppError && !err.retryable) throw err;
        last =
          err instanceof AppError
            ? err
            : new AppError('UNAVAILABLE', `webhook unreachable: ${(err as Error).message}`, {
                retryable: true,
              });
      }
      if (attempt < this.opts.attempts)
        await new Promise((r) => setTimeout(r, this.opts.backoffMs * 2 ** (attempt - 1)));
    }
    throw last instanceof AppError ? last : new AppError('UNAVAILABLE', 'webhook delivery failed');
  }

  private post(url: string, text: string, headers: Record<string, string>): Promise<number> {
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : u.protocol === 'http:' ? http : undefined;
    if (!mod) return Promise.reject(new AppError('INVALID_ARGUMENT', 'webhook url must be http or https'));
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    const host = u.hostname.replace(/^\[|\]$/g, '');
    // Node connects to an IP literal without calling `lookup`: such hosts are decided here, before any socket.
    if (isIP(host)) {
      const d = decideEgress(this.policy, { host, address: host, port });
      if (!d.allowed)
        return Promise.reject(
          new AppError('FAILED_PRECONDITION', egressRefusalMessage(this.policy, host, d.reason, d.allowable)),
        );
    }
    const lookup = (
      hostname: string,
      options: object,
      cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return cb(err, []);
        for (const a of addresses) {
          const d = decideEgress(this.policy, { host, address: a.address, port });
          if (!d.allowed)
            return cb(
              new AppError(
                'FAILED_PRECONDITION',
                egressRefusalMessage(this.policy, host, d.reason, d.allowable),
              ),
              [],
            );
        }
        const all = (options as { all?: boolean }).all;
        return all ? cb(null, addresses) : cb(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
    return new Promise((resolve, reject) => {
      const req = mod.request(
        {
          method: 'POST',
          hostname: host,
          port,
          path: `${u.pathname}${u.search}`,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(text)) },
          lookup: lookup as never,
          timeout: this.opts.timeoutMs,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(text);
    });
  }
}
