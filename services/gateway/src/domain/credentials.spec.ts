import { AppError } from '@af/service-kit';
import { bearerToken, LoginSchema, RegisterSchema, TokenService } from './credentials.js';

const secret = 'a'.repeat(32);

describe('TokenService', () => {
  it('issues a token that verifies to the user', async () => {
    const tokens = new TokenService(secret, 3600);
    const { token, expiresIn } = await tokens.issue('user-1');
    expect(expiresIn).toBe(3600);
    expect(await tokens.verify(token)).toBe('user-1');
  });

  it('rejects an expired token with "token expired"', async () => {
    const tokens = new TokenService(secret, 60);
    const { token } = await tokens.issue('user-1', Date.now() - 3600_000);
    await expect(tokens.verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'token expired' });
  });

  it('rejects a token signed with another key, and garbage', async () => {
    const other = await new TokenService('b'.repeat(32), 60).issue('user-1');
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
});
