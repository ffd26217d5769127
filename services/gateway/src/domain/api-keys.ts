/**
 * API keys: long-lived credentials the gateway issues so other teams'
 * services can call it (HTTP) or exchange them for a principal token (gRPC).
 * A key is `afk_` + 32 random bytes (base64url); only its SHA-256 is stored
 * (the key has 256 bits of entropy, so a fast hash is enough), plus a short
 * prefix to recognise it in listings.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

export const API_KEY_PREFIX = 'afk_';
/** Characters of the key shown in listings (`afk_` + 8). */
export const API_KEY_DISPLAY_LENGTH = 12;
const KEY_PATTERN = /^afk_[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  /** The key itself: shown once, never stored. */
  key: string;
  /** What listings show. */
  prefix: string;
  /** What is stored and looked up. */
  hash: string;
}

export function generateApiKey(): NewApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, API_KEY_DISPLAY_LENGTH), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether `value` has the shape of one of our keys (checked before any lookup). */
export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/** Most keys one user may hold (revoked ones do not count). */
export const MAX_API_KEYS_PER_USER = 50;

export const CreateApiKeySchema = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  /** Restrict the key to this team (one the creator is a member of): its principal carries only this team. */
  team_id: z.string().uuid('must be a team id').optional(),
  /** Days until the key stops working (default: never). */
  expires_in_days: z.number({ error: 'must be a whole number of days' }).int('must be a whole number of days').min(1, 'must be at least 1').max(3650, 'must be at most 3650').optional(),
});

export const ApiKeyPathSchema = z.object({ id: z.string().uuid('must be an API key id') });

/**
 * The credential of an HTTP request when it is an API key: `X-API-Key: afk_…`
 * or `Authorization: Bearer afk_…`; undefined when the request carries
 * something else (a login JWT, or nothing).
 */
export function apiKeyFromHeaders(headers: { authorization?: string | undefined; 'x-api-key'?: string | string[] | undefined }): string | undefined {
  const explicit = headers['x-api-key'];
  if (explicit !== undefined) return (Array.isArray(explicit) ? explicit[0] : explicit)?.trim() ?? '';
  const match = /^Bearer\s+(afk_\S*)$/i.exec(headers.authorization?.trim() ?? '');
  return match ? match[1] : undefined;
}
