import { inviteProblem, inviteRequired, inviteTokenHash, newInviteToken, signupRule, type StoredInvite } from './signup.js';

describe('signupRule', () => {
  it('lets anyone register when open, with or without an invitation', () => {
    expect(signupRule('open', false)).toBe('allowed');
    expect(signupRule('open', true)).toBe('allowed');
  });

  it('lets an invitation through when invite-only, and without one only the first account', () => {
    expect(signupRule('invite', true)).toBe('allowed');
    expect(signupRule('invite', false)).toBe('first_account_only');
    expect(inviteRequired()).toMatchObject({ code: 'PERMISSION_DENIED', violations: [expect.objectContaining({ field: 'invite_token', code: 'invite_required' })] });
  });

  it('refuses every registration when closed, invitations included', () => {
    for (const hasInvite of [false, true]) {
      expect(() => signupRule('closed', hasInvite)).toThrow(expect.objectContaining({ code: 'PERMISSION_DENIED', message: expect.stringContaining('SIGNUP=closed') }));
    }
  });
});

describe('invitation tokens', () => {
  it('are random, prefixed, and stored only as their hash', () => {
    const a = newInviteToken();
    const b = newInviteToken();
    expect(a.token).toMatch(/^afi_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.hash.equals(inviteTokenHash(a.token))).toBe(true);
    expect(a.hash.toString('utf8')).not.toContain(a.token);
  });
});

describe('inviteProblem', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  const invite = (over: Partial<StoredInvite> = {}): StoredInvite => ({ email: 'bo@example.com', expiresAt: new Date('2026-11-28T00:00:00Z'), acceptedAt: null, revokedAt: null, ...over });

  it('accepts a pending invitation for its own address', () => {
    expect(inviteProblem(invite(), 'bo@example.com', now)).toBeUndefined();
  });

  it.each([
    ['unknown', undefined, 'is not a valid invitation'],
    ['revoked', invite({ revokedAt: now }), 'is not a valid invitation'],
    ['used', invite({ acceptedAt: now }), 'has already been used'],
    ['expired', invite({ expiresAt: now }), 'has expired: ask the team owner for a new invitation'],
    ['for another address', invite({ email: 'al@example.com' }), 'was issued for another email address'],
  ])('refuses an invitation that is %s', (_, stored, reason) => {
    expect(inviteProblem(stored, 'bo@example.com', now)).toBe(reason);
  });
});
