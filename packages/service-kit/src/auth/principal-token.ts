/**
 * Principal tokens: who a gRPC call acts for, signed by a holder of the
 * shared service secret. A compact HS256 JWT (header.payload.signature,
 * base64url) made with node:crypto so every service can mint and verify it
 * without a round trip:
 *
 *   { sub: user id, teams: team ids, iss: minting service, aud: "af-internal", iat, exp }
 *
 * Verification accepts exactly this header, checks the signature against
 * every configured secret (the current one first, then any kept for
 * rotation), and refuses expired, not-yet-valid, over-long-lived or
 * oversized tokens. Failure reasons never contain the token.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The `aud` of every principal token. */
export const PRINCIPAL_TOKEN_AUDIENCE = 'af-internal';
/** Shortest accepted secret, in characters. */
export const MIN_SECRET_LENGTH = 32;
/** Longest token accepted (characters); gRPC metadata stays under its 8 KiB default. */
export const MAX_TOKEN_LENGTH = 6144;
/** Most team ids one token carries. */
export const MAX_TOKEN_TEAMS = 100;
/** Longest user id / team id / issuer (characters). */
export const MAX_ID_LENGTH = 256;
/** Longest lifetime (exp - iat) a token may declare, in seconds. */
export const MAX_TOKEN_LIFETIME_SECONDS = 3600;
/** Tolerated clock difference between services, in seconds. */
export const CLOCK_SKEW_SECONDS = 30;

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/** The identity a call acts for, as gRPC requests carry it. */
export interface TokenPrincipal {
  userId: string;
  teamIds: string[];
}

export interface PrincipalClaims {
  principal: TokenPrincipal;
  /** The service (or `gateway` for API-key exchanges) that minted the token. */
  issuer: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/** Why a token was refused; the message is safe to return to the caller. */
export class PrincipalTokenError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PrincipalTokenError';
  }
}

/** Sign `principal` as `issuer` for `ttlSeconds` from `nowMs`. Throws PrincipalTokenError on a principal no verifier would accept. */
export function mintPrincipalToken(
  secret: string,
  input: { principal: TokenPrincipal; issuer: string; ttlSeconds: number },
  nowMs = Date.now(),
): string {
  if (secret.length < MIN_SECRET_LENGTH) throw new PrincipalTokenError(`the signing secret must be at least ${MIN_SECRET_LENGTH} characters`);
  if (!Number.isInteger(input.ttlSeconds) || input.ttlSeconds < 1 || input.ttlSeconds > MAX_TOKEN_LIFETIME_SECONDS) {
    throw new PrincipalTokenError(`ttl must be an integer between 1 and ${MAX_TOKEN_LIFETIME_SECONDS} seconds`);
  }
  checkId('user id', input.principal.userId);
  checkId('issuer', input.issuer);
  checkTeams(input.principal.teamIds);
  const iat = Math.floor(nowMs / 1000);
  const payload = base64url(
    JSON.stringify({ sub: input.principal.userId, teams: input.principal.teamIds, iss: input.issuer, aud: PRINCIPAL_TOKEN_AUDIENCE, iat, exp: iat + input.ttlSeconds }),
  );
  const token = `${HEADER}.${payload}.${sign(secret, `${HEADER}.${payload}`)}`;
  if (token.length > MAX_TOKEN_LENGTH) throw new PrincipalTokenError(`the token would be longer than ${MAX_TOKEN_LENGTH} characters`);
  return token;
}

/**
 * The claims of a valid token. `secrets` are tried in order (current first).
 * Throws PrincipalTokenError naming the reason otherwise.
 */
export function verifyPrincipalToken(token: string, secrets: readonly string[], nowMs = Date.now()): PrincipalClaims {
  if (typeof token !== 'string' || token.length === 0) throw new PrincipalTokenError('the token is empty');
  if (token.length > MAX_TOKEN_LENGTH) throw new PrincipalTokenError(`the token is longer than ${MAX_TOKEN_LENGTH} characters`);
  const parts = token.split('.');
  if (parts.length !== 3) throw new PrincipalTokenError('the token is malformed');
  const [header, payload, signature] = parts as [string, string, string];
  if (header !== HEADER) throw new PrincipalTokenError('the token header is not {"alg":"HS256","typ":"JWT"}');
  // Compared as text: base64url decoding is lenient about the last character.
  const given = Buffer.from(signature, 'utf8');
  const signed = `${header}.${payload}`;
  const ok = secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, signed), 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!ok) throw new PrincipalTokenError('the token signature is invalid');

  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new PrincipalTokenError('the token payload is not JSON');
  }
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) throw new PrincipalTokenError('the token payload is not an object');
  if (claims.aud !== PRINCIPAL_TOKEN_AUDIENCE) throw new PrincipalTokenError(`the token audience is not ${PRINCIPAL_TOKEN_AUDIENCE}`);
  const { sub, teams, iss, iat, exp } = claims;
  if (typeof sub !== 'string') throw new PrincipalTokenError('the token has no subject');
  checkId('subject', sub);
  if (typeof iss !== 'string') throw new PrincipalTokenError('the token has no issuer');
  checkId('issuer', iss);
  if (!Array.isArray(teams) || !teams.every((t): t is string => typeof t === 'string')) throw new PrincipalTokenError('the token teams are not a list of ids');
  checkTeams(teams);
  if (!Number.isInteger(iat) || !Number.isInteger(exp)) throw new PrincipalTokenError('the token has no valid iat/exp');
  const now = nowMs / 1000;
  const issuedAt = iat as number;
  const expiresAt = exp as number;
  if (expiresAt <= issuedAt || expiresAt - issuedAt > MAX_TOKEN_LIFETIME_SECONDS) throw new PrincipalTokenError(`the token lifetime exceeds ${MAX_TOKEN_LIFETIME_SECONDS} seconds`);
  if (issuedAt > now + CLOCK_SKEW_SECONDS) throw new PrincipalTokenError('the token is issued in the future');
  if (expiresAt <= now) throw new PrincipalTokenError('the token has expired');
  return { principal: { userId: sub, teamIds: [...teams] }, issuer: iss, issuedAt, expiresAt };
}

function checkId(what: string, value: string): void {
  if (value.length === 0) throw new PrincipalTokenError(`the ${what} is empty`);
  if (value.length > MAX_ID_LENGTH) throw new PrincipalTokenError(`the ${what} is longer than ${MAX_ID_LENGTH} characters`);
}

function checkTeams(teams: readonly string[]): void {
  if (teams.length > MAX_TOKEN_TEAMS) throw new PrincipalTokenError(`a token carries at most ${MAX_TOKEN_TEAMS} team ids`);
  for (const t of teams) checkId('team id', t);
}

function sign(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data).digest('base64url');
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
