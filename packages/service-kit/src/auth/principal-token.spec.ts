import { createHmac } from 'node:crypto';
import {
  MAX_TOKEN_LENGTH,
  MAX_TOKEN_TEAMS,
  mintPrincipalToken,
  PrincipalTokenError,
  verifyPrincipalToken,
} from './principal-token.js';

const SECRET = 'a'.repeat(32);
const OTHER = 'b'.repeat(32);
const T0 = 1_800_000_000_000;
const alice = { userId: 'user-a', teamIds: ['team-1', 'team-2'] };

const mint = (over: Partial<{ principal: typeof alice; issuer: string; ttlSeconds: number }> = {}, now = T0, secret = SECRET) =>
  mintPrincipalToken(secret, { principal: alice, issuer: 'gateway', ttlSeconds: 60, ...over }, now);

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof PrincipalTokenError) return err.reason;
    throw err;
  }
  throw new Error('expected a PrincipalTokenError');
}

/** A token with a hand-made payload, correctly signed (to test claim checks behind the signature). */
function signedWith(payload: Record<string, unknown>, header = { alg: 'HS256', typ: 'JWT' }, secret = SECRET): string {
  const h = Buffer.from(JSON.stringify(header)).toString('base64url');
  const p = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${h}.${p}.${createHmac('sha256', secret).update(`${h}.${p}`).digest('base64url')}`;
}

const iat = T0 / 1000;
const claims = { sub: 'user-a', teams: [], iss: 'gateway', aud: 'af-internal', iat, exp: iat + 60 };

describe('principal tokens', () => {
  it('round-trips the principal, issuer and times', () => {
    expect(verifyPrincipalToken(mint(), [SECRET], T0 + 1000)).toEqual({ principal: alice, issuer: 'gateway', issuedAt: iat, expiresAt: iat + 60 });
  });

  it('is an HS256 JWT any JWT library can read', () => {
    const [header, payload] = mint().split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toEqual({ sub: 'user-a', teams: ['team-1', 'team-2'], iss: 'gateway', aud: 'af-internal', iat, exp: iat + 60 });
  });

  it('accepts a token signed with any configured secret (rotation), current first', () => {
    expect(verifyPrincipalToken(mint({}, T0, OTHER), [SECRET, OTHER], T0).principal).toEqual(alice);
  });

  it('refuses an expired token, and one issued in the future', () => {
    expect(reason(() => verifyPrincipalToken(mint(), [SECRET], T0 + 60_000))).toBe('the token has expired');
    expect(reason(() => verifyPrincipalToken(mint({}, T0 + 120_000), [SECRET], T0))).toBe('the token is issued in the future');
  });

  it('refuses a token signed with another secret', () => {
    expect(reason(() => verifyPrincipalToken(mint({}, T0, OTHER), [SECRET], T0))).toBe('the token signature is invalid');
  });

  it('refuses a tampered payload (another user) and a tampered signature', () => {
    const [h, , s] = mint().split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'user-b' })).toString('base64url');
    expect(reason(() => verifyPrincipalToken(`${h}.${forged}.${s}`, [SECRET], T0))).toBe('the token signature is invalid');
    const token = mint();
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(reason(() => verifyPrincipalToken(flipped, [SECRET], T0))).toBe('the token signature is invalid');
  });

  it('refuses another header (alg none, HS384) even when "signed"', () => {
    expect(reason(() => verifyPrincipalToken(signedWith(claims, { alg: 'none', typ: 'JWT' }), [SECRET], T0))).toMatch(/header/);
    expect(reason(() => verifyPrincipalToken(signedWith(claims, { alg: 'HS384', typ: 'JWT' }), [SECRET], T0))).toMatch(/header/);
  });

  it('refuses the wrong audience, a missing subject or issuer, bad teams, and over-long lifetimes', () => {
    expect(reason(() => verifyPrincipalToken(signedWith({ ...claims, aud: 'agent-factory' }), [SECRET], T0))).toBe('the token audience is not af-internal');
    expect(reason(() => verifyPrincipalToken(signedWith({ ...claims, sub: undefined }), [SECRET], T0))).toBe('the token has no subject');
    expect(reason(() => verifyPrincipalToken(signedWith({ ...claims, sub: '' }), [SECRET], T0))).toBe('the subject is empty');
    expect(reason(() => verifyPrincipalToken(signedWith({ ...claims, iss: 7 }), [SECRET], T0))).toBe('the token has no issuer');
    expect(reason(() => verifyPrincipalToken(signedWith({ ...claims, teams: [1] }), [SECRET], T0))).toBe('the token teams are not a list of ids');
    expect(reason(() => verifyPrincipalToken(signedWith({ ...claims, exp: iat + 7200 }), [SECRET], T0))).toBe('the token lifetime exceeds 3600 seconds');
    expect(reason(() => verifyPrincipalToken(signedWith({ ...claims, exp: 'later' }), [SECRET], T0))).toBe('the token has no valid iat/exp');
  });

  it('refuses oversized and malformed tokens before any crypto', () => {
    expect(reason(() => verifyPrincipalToken('x'.repeat(MAX_TOKEN_LENGTH + 1), [SECRET], T0))).toBe(`the token is longer than ${MAX_TOKEN_LENGTH} characters`);
    expect(reason(() => verifyPrincipalToken('', [SECRET], T0))).toBe('the token is empty');
    expect(reason(() => verifyPrincipalToken('a.b', [SECRET], T0))).toBe('the token is malformed');
    expect(reason(() => verifyPrincipalToken(signedWith({ ...claims, teams: Array.from({ length: MAX_TOKEN_TEAMS + 1 }, (_, i) => `t${i}`) }), [SECRET], T0))).toBe(
      `a token carries at most ${MAX_TOKEN_TEAMS} team ids`,
    );
  });

  it('refuses to mint what no verifier would accept', () => {
    expect(reason(() => mint({ principal: { userId: '', teamIds: [] } }))).toBe('the user id is empty');
    expect(reason(() => mint({ principal: { userId: 'u', teamIds: Array.from({ length: MAX_TOKEN_TEAMS + 1 }, () => 't') } }))).toMatch(/at most/);
    expect(reason(() => mint({ ttlSeconds: 0 }))).toMatch(/ttl must be/);
    expect(reason(() => mint({ ttlSeconds: 3601 }))).toMatch(/ttl must be/);
    expect(reason(() => mint({}, T0, 'short'))).toMatch(/at least 32/);
  });

  it('never puts the token in an error message', () => {
    const token = mint();
    for (const bad of [token + 'x', token.replace('.', '..')]) {
      expect(reason(() => verifyPrincipalToken(bad, [OTHER], T0))).not.toContain(token.split('.')[2]);
    }
  });
});
