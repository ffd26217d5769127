/**
 * Logging for plugins: pino, structured, and a per-call logger for handlers
 * that masks the caller's config values (webhook URLs, API keys) wherever they
 * show up — in the message, in fields, in error messages — so a handler that
 * logs its request by mistake still does not leak them.
 */
import { maskSecret as maskOne } from '@af/secret-mask';
import pino, { type Logger } from 'pino';

export type { Logger };

const MASK = '[REDACTED]';

export interface PluginLogger {
  debug(fieldsOrMessage: Record<string, unknown> | string, message?: string): void;
  info(fieldsOrMessage: Record<string, unknown> | string, message?: string): void;
  warn(fieldsOrMessage: Record<string, unknown> | string, message?: string): void;
  error(fieldsOrMessage: Record<string, unknown> | string, message?: string): void;
}

/** The process logger of a plugin (JSON lines on stdout). */
export function createPluginLogger(
  plugin: { name: string; version: string },
  level: string = 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { plugin: plugin.name, version: plugin.version, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: pino.stdSerializers.err },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * `text` with `secret` replaced by the mask, by the rule every Agent Factory
 * service uses (`@af/secret-mask`): a secret of 8 characters or more is
 * replaced wherever it occurs; a shorter one only where it stands as a whole
 * value (no letter or digit right before or after it), so a secret `pass`
 * turns `password=pass` into `password=[REDACTED]` but leaves `bypass` alone.
 */
export function maskSecret(text: string, secret: string): string {
  return maskOne(text, secret, MASK);
}

/**
 * Replaces the secrets inside any JSON-like value: long ones (≥ 8 characters)
 * wherever they occur, short ones only as whole values (see `maskSecret`).
 */
export function maskSecrets<T>(value: T, secrets: readonly string[], depth = 0): T {
  if (secrets.length === 0 || depth > 8) return value;
  if (typeof value === 'string') {
    let out: string = value;
    for (const s of secrets) out = maskSecret(out, s);
    return out as T;
  }
  if (value instanceof Error) {
    return {
      type: value.name,
      message: maskSecrets(value.message, secrets),
      stack: maskSecrets(value.stack ?? '', secrets),
    } as T;
  }
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, secrets, depth + 1)) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = maskSecrets(v, secrets, depth + 1);
    return out as T;
  }
  return value;
}

/** The values to mask for a config: each value, and its URL-encoded form. */
export function configSecrets(config: Readonly<Record<string, string>>): string[] {
  const out = new Set<string>();
  for (const value of Object.values(config)) {
    if (typeof value !== 'string' || value.length < 4) continue;
    out.add(value);
    out.add(encodeURIComponent(value));
  }
  // Longest first, so a value containing another is masked whole.
  return [...out].sort((a, b) => b.length - a.length);
}

/** A handler's logger: `base`'s child with `bindings`, masking `secrets`. */
export function maskingLogger(
  base: Logger,
  bindings: Record<string, unknown>,
  secrets: readonly string[],
): PluginLogger {
  const child = base.child(bindings);
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (fieldsOrMessage: Record<string, unknown> | string, message?: string): void => {
      if (typeof fieldsOrMessage === 'string') child[level](maskSecrets(fieldsOrMessage, secrets));
      else
        child[level](
          maskSecrets(fieldsOrMessage, secrets),
          message === undefined ? undefined : maskSecrets(message, secrets),
        );
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
