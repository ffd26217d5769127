import { createHash, createHmac } from 'node:crypto';
import { AUTHORIZATION_TTL_MS, newNonce, pkcePair, signState, stateSecretFrom, verifyState } from './oauth-state.js';

const SECRET = stateSecretFrom(Buffer.alloc(32, 7));
const NOW = 1_800_000_000_000;

describe('OAuth state', () => {
  it('round-trips a nonce and expiry it signed', () => {
    const nonce = newNonce();
    const state = signState({ nonce, exp: NOW + AUTHORIZATION_TTL_MS }, SECRET);
    expect(verifyState(state, SECRET, NOW)).toEqual({ ok: true, payload: { nonce, exp: NOW + AUTHORIZATION_TTL_MS } });
  });

  it('refuses a state signed with another key, altered, or made up', () => {
    const state = signState({ nonce: 'n1', exp: NOW + 1000 }, SECRET);
    const other = stateSecretFrom(Buffer.alloc(32, 8));
    expect(verifyState(state, other, NOW)).toEqual({ ok: false, reason: expect.stringMatching(/forged or altered/) });
    const [body, sig] = state.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ n: 'n2', e: NOW + 1000 })).toString('base64url');
    expect(verifyState(`${forgedBody}.${sig}`, SECRET, NOW).ok).toBe(false);
    expect(verifyState(`${body}.${sig}.x`, SECRET, NOW).ok).toBe(false);
    expect(verifyState('', SECRET, NOW).ok).toBe(false);
    expect(verifyState('x'.repeat(600), SECRET, NOW).ok).toBe(false);
    expect(verifyState('abc', SECRET, NOW).ok).toBe(false);
  });

  it('refuses an expired state even with a good signature', () => {
    const state = signState({ nonce: 'n1', exp: NOW }, SECRET);
    expect(verifyState(state, SECRET, NOW)).toEqual({ ok: false, reason: expect.stringMatching(/expired/) });
  });

  it('refuses a well-signed payload of the wrong shape', () => {
    const body = Buffer.from(JSON.stringify({ n: 1, e: 'soon' })).toString('base64url');
    const sig = createHmac('sha256', SECRET).update(body).digest('base64url');
    expect(verifyState(`${body}.${sig}`, SECRET, NOW)).toEqual({ ok: false, reason: expect.stringMatching(/not a state/) });
  });

  it('PKCE: a 43-character verifier whose S256 challenge matches', () => {
    const { verifier, challenge } = pkcePair();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(challenge).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(pkcePair().verifier).not.toBe(verifier);
  });
});
