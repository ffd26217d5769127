/**
 * The `state` of a user's OAuth authorization (RFC 6749 §10.12, CSRF) and its
 * PKCE pair (RFC 7636). The state is `<payload>.<signature>`: a base64url
 * JSON payload with the pending authorization's random nonce and its expiry,
 * signed with HMAC-SHA256. The callback trusts nothing it carries until the
 * signature checks out and the expiry has not passed; the nonce then names
 * the one pending row (user, connector, redirect URI, code verifier) the
 * service stored, which is consumed once.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a user has between asking for the consent URL and coming back. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;
const MAX_STATE_LENGTH = 512;

export interface StatePayload {
  /** The pending authorization's id (32 random bytes, base64url). */
  nonce: string;
  /** Expiry, epoch ms. */
  exp: number;
}

export type StateCheck = { ok: true; payload: StatePayload } | { ok: false; reason: string };

const b64 = (buf: Buffer) => buf.toString('base64url');

export const newNonce = (): string => b64(randomBytes(32));

/** A PKCE code verifier (43 characters of the unreserved set) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = b64(randomBytes(32));
  return { verifier, challenge: b64(createHash('sha256').update(verifier).digest()) };
}

export function signState(payload: StatePayload, secret: Buffer): string {
  const body = b64(Buffer.from(JSON.stringify({ n: payload.nonce, e: payload.exp })));
  return `${body}.${b64(createHmac('sha256', secret).update(body).digest())}`;
}

/** Checks shape, signature and expiry, in that order; the reason is safe to show the user. */
export function verifyState(state: string, secret: Buffer, now: number): StateCheck {
  if (typeof state !== 'string' || state === '' || state.length > MAX_STATE_LENGTH) {
    return { ok: false, reason: 'is missing or not a state this service issued' };
  }
  const [body, signature, extra] = state.split('.');
  if (!body || !signature || extra !== undefined) return { ok: false, reason: 'is not a state this service issued' };
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'has a signature that does not match (forged or altered)' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'is not a state this service issued' };
  }
  const { n, e } = (parsed ?? {}) as { n?: unknown; e?: unknown };
  if (typeof n !== 'string' || typeof e !== 'number') return { ok: false, reason: 'is not a state this service issued' };
  if (e <= now) return { ok: false, reason: 'has expired; start connecting again' };
  return { ok: true, payload: { nonce: n, exp: e } };
}

/** The state-signing key, derived from the service's active credentials key (so no extra secret to manage). */
export function stateSecretFrom(credentialsKey: Buffer): Buffer {
  return createHmac('sha256', credentialsKey).update('agent-factory/oauth-state/v1').digest();
}
