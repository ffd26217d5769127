/** Registration and login input rules, and access tokens (HS256 JWT with expiry). */
import { errors, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { AppError } from '@af/service-kit';

export const RegisterSchema = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email('must be an email address')).pipe(z.string().max(254)),
  password: z.string().min(8, 'must be at least 8 characters').max(200, 'must be at most 200 characters'),
  name: z.string().trim().min(1).max(200).optional(),
});

export const LoginSchema = z.object({
  email: z.string().trim().toLowerCase().min(1, 'is required'),
  password: z.string().min(1, 'is required').max(200),
});

const ISSUER = 'agent-factory';
const AUDIENCE = 'agent-factory';

export interface AccessToken {
  token: string;
  expiresIn: number;
}

export class TokenService {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(userId: string, now = Date.now()): Promise<AccessToken> {
    const iat = Math.floor(now / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.key);
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The user id of a valid token; UNAUTHENTICATED naming the reason otherwise. */
  async verify(token: string): Promise<string> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
      if (typeof payload.sub !== 'string' || !payload.sub) throw new AppError('UNAUTHENTICATED', 'token has no subject');
      return payload.sub;
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (err instanceof errors.JWTExpired) throw new AppError('UNAUTHENTICATED', 'token expired');
      throw new AppError('UNAUTHENTICATED', 'invalid token');
    }
  }
}

/** `Authorization: Bearer <token>` → token, or UNAUTHENTICATED. */
export function bearerToken(header: string | undefined): string {
  if (!header) throw new AppError('UNAUTHENTICATED', 'missing Authorization header (expected "Bearer <token>")');
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (!match) throw new AppError('UNAUTHENTICATED', 'Authorization header must be "Bearer <token>"');
  return match[1]!;
}
