/**
 * Structured logs (pino). Secrets are removed twice: by key (redact paths for
 * the usual credential field names) and by value (any string registered with
 * `registerSecret`, e.g. a decrypted credential, is masked wherever it shows up).
 */
import pino, { type Logger, type LoggerOptions } from 'pino';
import { maskSecret } from '@af/secret-mask';

export type { Logger };

const REDACT_KEYS = [
  'password',
  'passwordHash',
  'password_hash',
  'secret',
  'token',
  'accessToken',
  'refreshToken',
  'apiKey',
  'api_key',
  'authorization',
  'credentials',
  'jwt',
  'clientSecret',
  'client_secret',
];

export const REDACT_PATHS = [
  ...REDACT_KEYS,
  ...REDACT_KEYS.map((k) => `*.${k}`),
  ...REDACT_KEYS.map((k) => `*.*.${k}`),
  'req.headers.authorization',
  'req.headers.cookie',
];

const MASK = '[REDACTED]';
const secrets = new Set<string>();

/** Mask this value in every later log line. Values shorter than 4 chars are ignored (too noisy to mask); values shorter than 8 are masked only as whole values (@af/secret-mask). */
export function registerSecret(value: string): void {
  if (value.length >= 4) secrets.add(value);
}

/** Replace registered secret values inside any JSON-like value. */
export function scrubSecrets<T>(value: T, depth = 0): T {
  if (secrets.size === 0 || depth > 8) return value;
  if (typeof value === 'string') {
    let out: string = value;
    // Longest first, so a secret that contains another is masked whole.
    for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = maskSecret(out, s, MASK);
    return out as T;
  }
  if (Array.isArray(value)) return value.map((v) => scrubSecrets(v, depth + 1)) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = scrubSecrets(v, depth + 1);
    return out as T;
  }
  return value;
}

export function createLogger(
  service: string,
  level: LoggerOptions['level'] = 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options: LoggerOptions = {
    level,
    base: { service, pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: MASK },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { log: (obj) => scrubSecrets(obj) },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a) => scrubSecrets(a)) as Parameters<typeof method>;
        method.apply(this, scrubbed);
      },
    },
    serializers: { err: pino.stdSerializers.err },
  };
  return destination ? pino(options, destination) : pino(options);
}
