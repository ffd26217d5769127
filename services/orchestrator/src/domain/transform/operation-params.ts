/**
 * Small checks shared by the operation parsers: allowed keys, enumerations
 * with a "did you mean" hint, and which keys are present. Every failure is a
 * {@link TransformError} naming the exact key.
 */
import { nearestName } from '@af/plan';
import { TransformError } from './transform-error.js';

/** One raw entry of `params.operations`, before parsing. */
export type RawOperation = Readonly<Record<string, unknown>>;

const hasOwn = Object.prototype.hasOwnProperty;

/** A plain (non-array, non-null) object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when `key` is set on `op`; `undefined` counts as absent, as in JSON. */
export function has(op: RawOperation, key: string): boolean {
  return hasOwn.call(op, key) && op[key] !== undefined;
}

/** `at.key` for identifier keys, `at["odd key"]` otherwise. */
export function keyPath(at: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;
}

/**
 * Rejects keys that `what` (e.g. "sort operation") does not read, so a
 * misspelt key (`feild`, `directon`) fails loudly instead of being ignored.
 */
export function checkKeys(op: RawOperation, allowed: readonly string[], at: string, what: string): void {
  for (const key of Object.keys(op)) {
    if (allowed.includes(key) || op[key] === undefined) continue;
    const fix = nearestName(key, allowed);
    throw new TransformError(
      keyPath(at, key),
      `unknown key in this ${what}${fix ? ` (did you mean '${fix}'?)` : ''}; allowed: ${allowed.join(', ')}`,
    );
  }
}

/** `raw` when it is one of `allowed`; otherwise an error listing them (with a nearest-name hint). */
export function oneOf<T extends string>(raw: unknown, allowed: readonly T[], at: string, what: string): T {
  if (typeof raw === 'string' && (allowed as readonly string[]).includes(raw)) return raw as T;
  if (raw === undefined)
    throw new TransformError(at, `is required: the ${what}, one of ${allowed.join(', ')}`);
  const fix = typeof raw === 'string' ? nearestName(raw, allowed) : undefined;
  throw new TransformError(
    at,
    `unknown ${what} ${JSON.stringify(raw)}${fix ? ` (did you mean '${fix}'?)` : ''}; one of ${allowed.join(', ')}`,
  );
}
