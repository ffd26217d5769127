/**
 * Scrubs a call's credentials out of a *successful* result before it leaves
 * the connector runtime (and before it is cached or stored for idempotent
 * replays). An upstream may echo what it was sent — a debugging endpoint
 * returning the request headers, an API that puts the key in a `next` URL,
 * an OAuth-protected API that returns the bearer token — and the result
 * becomes a run output that other steps, logs and the debug view see.
 *
 * Every string value and every object key that contains a secret gets the
 * secret replaced by `[REDACTED]`, in each form it may travel in: as is,
 * URL-encoded, form-encoded and base64 (with or without padding, standard or
 * URL-safe), and `user:password` pairs with their base64 (the HTTP Basic
 * `Authorization` value).
 *
 * Not secrets on their own: user names and OAuth client ids (`user`,
 * `username`, `client_id`) are redacted only as part of their pair, so a
 * record that names the account keeps its name. Values shorter than
 * `MIN_RESULT_SECRET_LENGTH` characters are not redacted from results either
 * (they would turn every "a" or "1" of a result into `[REDACTED]`); error
 * messages still redact them (`redaction.ts`). Such short credentials are
 * weak anyway.
 */
import { maskSecret } from '@af/secret-mask';
import { REDACTED } from './redaction.js';

/** Shortest credential value (or `user:password` pair) that is redacted from results. */
export const MIN_RESULT_SECRET_LENGTH = 8;

/** Credential names that identify an account rather than prove it. */
export const IDENTIFIER_CREDENTIALS: ReadonlySet<string> = new Set(['user', 'username', 'client_id']);

/** Pairs sent together as `a:b` (HTTP Basic, OAuth client authentication). */
const PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['username', 'password'],
  ['user', 'password'],
  ['client_id', 'client_secret'],
];

/**
 * Every form of the call's secrets a result may carry, longest first:
 * the credential values (identifiers only in their pair), the password of a
 * connection URL, and `extraValues` (OAuth access and refresh tokens, plugin
 * config values).
 */
export function resultSecrets(
  credentials: Readonly<Record<string, unknown>>,
  extraValues: readonly string[] = [],
): string[] {
  if (extraValues.length > 0) return computeSecrets(credentials, extraValues);
  // A credentials object is not changed once loaded; calls that share one share the list.
  let cached = memo.get(credentials);
  if (!cached) {
    cached = computeSecrets(credentials, extraValues);
    memo.set(credentials, cached);
  }
  return cached;
}

const memo = new WeakMap<object, string[]>();

function computeSecrets(
  credentials: Readonly<Record<string, unknown>>,
  extraValues: readonly string[],
): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(credentials)) {
    if (typeof value !== 'string' || value === '') continue;
    if (!IDENTIFIER_CREDENTIALS.has(name)) values.push(value);
    const password = urlPassword(value);
    if (password) values.push(password);
  }
  for (const [id, secret] of PAIRS) {
    const a = credentials[id];
    const b = credentials[secret];
    if (typeof a === 'string' && typeof b === 'string' && b !== '') values.push(`${a}:${b}`);
  }
  values.push(...extraValues);
  const out = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string' || value.length < MIN_RESULT_SECRET_LENGTH) continue;
    for (const form of encodings(value)) if (form.length >= MIN_RESULT_SECRET_LENGTH) out.add(form);
  }
  return [...out].sort((x, y) => y.length - x.length);
}

/**
 * `value` with every secret replaced by `[REDACTED]` in its strings and
 * object keys. Copy-on-write: parts without a secret are the same objects, and
 * a value without any is returned as is. `secrets` should come from
 * `resultSecrets` (longest first, none too short).
 */
export function redactResult<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  return redactValue(value, secrets) as T;
}

function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = redactValue(value[i], secrets);
      if (next !== value[i]) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  if (value === null || typeof value !== 'object' || !isPlainObject(value)) return value;
  // Most results hold no secret: look first, allocate only once something changes.
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = record[k];
    const key = redactText(k, secrets);
    const val = redactValue(v, secrets);
    if (key !== k || val !== v) return rebuilt(record, keys, i, key, val, secrets);
  }
  return value;
}

/** `record` with keys[from] replaced by `key: val` and every later entry redacted. */
function rebuilt(
  record: Record<string, unknown>,
  keys: readonly string[],
  from: number,
  key: string,
  val: unknown,
  secrets: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown) => {
    // Two keys that differed only in their secret must both survive.
    let unique = k;
    for (let n = 2; Object.hasOwn(out, unique); n++) unique = `${k}_${n}`;
    out[unique] = v;
  };
  for (let i = 0; i < from; i++) put(keys[i]!, record[keys[i]!]);
  put(key, val);
  for (let i = from + 1; i < keys.length; i++) {
    const k = keys[i]!;
    put(redactText(k, secrets), redactValue(record[k], secrets));
  }
  return out;
}

function redactText(text: string, secrets: readonly string[]): string {
  // Longest first, so the last is the shortest: most keys and many values are shorter still.
  if (text.length < secrets[secrets.length - 1]!.length) return text;
  let out = text;
  for (const secret of secrets) out = maskSecret(out, secret, REDACTED);
  return out;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The forms a value travels in. Base64 with and without its padding (the padded one is longer, so it goes first). */
function encodings(value: string): string[] {
  const padded = Buffer.from(value, 'utf8').toString('base64');
  const base64 = padded.replace(/=+$/, '');
  const urlSafe = (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_');
  return [
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    padded,
    base64,
    urlSafe(padded),
    urlSafe(base64),
  ];
}

/** The password of a `scheme://user:password@host` value (a connection string), decoded. */
function urlPassword(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(value)) return undefined;
  try {
    const password = new URL(value).password;
    if (!password) return undefined;
    try {
      return decodeURIComponent(password);
    } catch {
      return password;
    }
  } catch {
    return undefined;
  }
}
