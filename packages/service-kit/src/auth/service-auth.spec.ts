import { AppError } from '../errors.js';
import { LruCache } from './lru.js';
import { verifyPrincipalToken } from './principal-token.js';
import { ServiceAuth, staticPrincipalToken } from './service-auth.js';

const SECRET = 's'.repeat(32);
const PREVIOUS = 'p'.repeat(32);

function clock(start = 1_800_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const error = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
};

describe('ServiceAuth signer', () => {
  it('signs the request principal, or system:<service> when there is none', () => {
    const c = clock();
    const auth = new ServiceAuth({ secret: SECRET, service: 'orchestrator', now: c.now });
    expect(verifyPrincipalToken(auth.tokenFor({ userId: 'u1', teamIds: ['t'] }), [SECRET], c.now())).toMatchObject({ principal: { userId: 'u1', teamIds: ['t'] }, issuer: 'orchestrator' });
    for (const none of [undefined, { userId: '', teamIds: [] }]) {
      expect(verifyPrincipalToken(auth.tokenFor(none), [SECRET], c.now()).principal).toEqual({ userId: 'system:orchestrator', teamIds: [] });
    }
  });

  it('reuses a token for half its lifetime, then mints a new one', () => {
    const c = clock();
    const auth = new ServiceAuth({ secret: SECRET, service: 'gateway', ttlSeconds: 60, now: c.now });
    const first = auth.tokenFor({ userId: 'u1', teamIds: [] });
    c.advance(29_000);
    expect(auth.tokenFor({ userId: 'u1', teamIds: [] })).toBe(first);
    expect(auth.tokenFor({ userId: 'u1', teamIds: ['t'] })).not.toBe(first);
    c.advance(2_000);
    const renewed = auth.tokenFor({ userId: 'u1', teamIds: [] });
    expect(renewed).not.toBe(first);
    expect(verifyPrincipalToken(renewed, [SECRET], c.now() + 59_000).principal.userId).toBe('u1');
  });

  it('the gateway refuses to act for a system principal taken from a request', () => {
    const auth = new ServiceAuth({ secret: SECRET, service: 'gateway', refuseSystemPrincipals: true });
    expect(error(() => auth.tokenFor({ userId: 'system:operator', teamIds: [] })).code).toBe('PERMISSION_DENIED');
    expect(verifyPrincipalToken(auth.tokenFor(undefined), [SECRET]).principal.userId).toBe('system:gateway');
  });

  it('refuses a secret under 32 characters', () => {
    expect(() => new ServiceAuth({ secret: 'short', service: 'x' })).toThrow(/SERVICE_AUTH_SECRET must be at least 32 characters/);
  });

  it('mintFor issues a token of the asked lifetime', () => {
    const c = clock();
    const auth = new ServiceAuth({ secret: SECRET, service: 'gateway', now: c.now });
    const claims = verifyPrincipalToken(auth.mintFor({ userId: 'u', teamIds: [] }, 300), [SECRET], c.now());
    expect(claims.expiresAt - claims.issuedAt).toBe(300);
  });
});

describe('ServiceAuth verifier', () => {
  it('verifies tokens of the current and the previous secret; signs only with the current one', () => {
    const c = clock();
    const old = new ServiceAuth({ secret: PREVIOUS, service: 'planner', now: c.now });
    const rotated = new ServiceAuth({ secret: SECRET, previousSecret: PREVIOUS, service: 'orchestrator', now: c.now });
    expect(rotated.verify(old.tokenFor({ userId: 'u', teamIds: [] })).principal.userId).toBe('u');
    expect(() => verifyPrincipalToken(rotated.tokenFor({ userId: 'u', teamIds: [] }), [PREVIOUS], c.now())).toThrow(/signature/);
  });

  it('answers UNAUTHENTICATED with the reason, never the token', () => {
    const c = clock();
    const auth = new ServiceAuth({ secret: SECRET, service: 'planner', now: c.now });
    const stranger = new ServiceAuth({ secret: PREVIOUS, service: 'x', now: c.now }).tokenFor({ userId: 'u', teamIds: [] });
    const err = error(() => auth.verify(stranger));
    expect([err.code, err.message]).toEqual(['UNAUTHENTICATED', 'invalid principal token: the token signature is invalid']);
    expect(err.message).not.toContain(stranger);
  });

  it('caches a verified token only until it expires', () => {
    const c = clock();
    const auth = new ServiceAuth({ secret: SECRET, service: 'planner', ttlSeconds: 60, now: c.now });
    const token = auth.tokenFor({ userId: 'u', teamIds: [] });
    expect(auth.verify(token).principal.userId).toBe('u');
    expect(auth.verify(token).principal.userId).toBe('u');
    c.advance(60_000);
    expect(error(() => auth.verify(token)).message).toBe('invalid principal token: the token has expired');
  });

  it('staticPrincipalToken sends the same token for every call', () => {
    const signer = staticPrincipalToken('t0k');
    expect([signer.tokenFor(undefined), signer.tokenFor({ userId: 'x', teamIds: [] })]).toEqual(['t0k', 't0k']);
  });
});

describe('LruCache', () => {
  it('evicts the least recently used entry past its capacity', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect([lru.get('a'), lru.get('b'), lru.get('c'), lru.size]).toEqual([1, undefined, 3, 2]);
    expect(() => new LruCache(0)).toThrow(/positive integer/);
  });
});
