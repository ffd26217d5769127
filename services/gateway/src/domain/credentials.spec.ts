import { AppError } from '@af/service-kit';
import { SignJWT } from 'jose';
import { bearerToken, LoginSchema, RegisterSchema, TokenService } from './credentials.js';

const secret = 'a'.repeat(32);

describe('TokenService', () => {
  it('issues a token that verifies to the user', async () => {
    const tokens = new TokenService(secret, 3600);
    const { token, expiresIn } = await tokens.issue('user-1', 3);
    expect(expiresIn).toBe(3600);
    expect(await tokens.verify(token)).toEqual({ userId: 'user-1', version: 3 });
  });

  it('reads a token without a version claim (issued before versions) as version 0', async () => {
    const legacy = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('user-1').setIssuer('agent-factory')
      .setAudience('agent-factory').setExpirationTime('1h').sign(new TextEncoder().encode(secret));
    expect(await new TokenService(secret, 60).verify(legacy)).toEqual({ userId: 'user-1', version: 0 });
  });

  it.each([['a string', 'x'], ['negative', -1], ['a fraction', 1.5]])('rejects a version claim that is %s', async (_, ver) => {
    const token = await new SignJWT({ ver }).setProtectedHeader({ alg: 'HS256' }).setSubject('user-1').setIssuer('agent-factory')
      .setAudience('agent-factory').setExpirationTime('1h').sign(new TextEncoder().encode(secret));
    await expect(new TokenService(secret, 60).verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'invalid token' });
  });

  it('rejects an expired token with "token expired"', async () => {
    const tokens = new TokenService(secret, 60);
    const { token } = await tokens.issue('user-1', 0, Date.now() - 3600_000);
    await expect(tokens.verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'token expired' });
  });

  it('rejects a token signed with another key, and garbage', async () => {
    const other = await new TokenService('b'.repeat(32), 60).issue('user-1', 0);
    const tokens = new TokenService(secret, 60);
    await expect(tokens.verify(other.token)).rejects.toMatchObject({ message: 'invalid token' });
    await expect(tokens.verify('x.y.z')).rejects.toBeInstanceOf(AppError);
  });
});

describe('bearerToken', () => {
  it('extracts the token', () => expect(bearerToken('Bearer abc.def')).toBe('abc.def'));
  it.each([undefined, '', 'Basic abc', 'Bearer', 'Bearer a b'])('rejects %p', (h) => {
    expect(() => bearerToken(h)).toThrow(AppError);
  });
});

describe('registration input', () => {
  it('normalises the email', () => {
    expect(RegisterSchema.parse({ email: ' Alice@Example.COM ', password: '12345678' }).email).toBe('alice@example.com');
  });
  it('names bad fields', () => {
    const r = RegisterSchema.safeParse({ email: 'x', password: 'short' });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['email', 'password']);
    expect(LoginSchema.safeParse({ email: '', password: '' }).success).toBe(false);
  });
  it('refuses a password over 72 bytes of UTF-8 (bcrypt would cut it), even under 72 characters', () => {
    const r = RegisterSchema.safeParse({ email: 'a@b.co', password: 'é'.repeat(37) });
    expect(r.success).toBe(false);
    expect(r.error!.issues).toEqual([expect.objectContaining({ path: ['password'], message: 'must be at most 72 bytes (UTF-8)' })]);
    expect(RegisterSchema.safeParse({ email: 'a@b.co', password: 'é'.repeat(36) }).success).toBe(true);
    expect(RegisterSchema.safeParse({ email: 'a@b.co', password: 'x'.repeat(73) }).success).toBe(false);
  });
});
