/** Cross-origin (CORS) answers for browser apps served from CORS_ORIGINS. */
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { CorsOrigins } from '../config.js';

type CorsOptions = Exclude<Parameters<NestExpressApplication['enableCors']>[0], undefined | ((...args: never[]) => unknown)>;

/** Request headers a browser app may send: credentials, bodies, idempotency, SSE resume. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID', 'X-API-Key'];
/** Response headers the API sets that a browser app needs to read. */
export const CORS_EXPOSED_HEADERS = ['Retry-After', 'Deprecation', 'Link', 'Warning'];

/**
 * Options for Nest's `enableCors` (the `cors` package), or undefined when no
 * origin is allowed (then no CORS headers at all). A listed origin is echoed
 * with `Vary: Origin`; any other gets no CORS headers, and its preflight no
 * allow headers. Credentials (cookies) are never allowed: the API takes bearer
 * tokens and API keys in headers, which is also why `*` is acceptable.
 */
export function corsOptions(origins: CorsOrigins): CorsOptions | undefined {
  if (origins !== '*' && origins.length === 0) return undefined;
  const allowed = origins === '*' ? undefined : new Set(origins);
  return {
    origin: (origin: string | undefined, cb: (err: Error | null, allow?: boolean) => void) => cb(null, origin !== undefined && (allowed === undefined || allowed.has(origin))),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
    optionsSuccessStatus: 204,
  };
}
