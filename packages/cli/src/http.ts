/**
 * undici's `request` for `af connector test`, loaded on first use so the
 * commands that make no HTTP calls start fast. Calls go straight out from the
 * developer's machine: the service's SSRF guard is for multi-tenant servers.
 */
import type { HttpRequestFn } from '@af/connectors';

export async function loadHttp(): Promise<HttpRequestFn> {
  return (await import('undici')).request as HttpRequestFn;
}
