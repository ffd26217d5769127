/** Registration and login input rules, and access tokens (HS256 JWT with expiry). */
import { errors, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { AppError } from '@af/service-kit';
import { MAX_PASSWORD_BYTES, MIN_PASSWORD_CHARS } from './password-policy.js';

export const RegisterSchema = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email('must be an email address')).pipe(z.string().max(254)),
  password: z
    .string()
    .min(MIN_PASSWORD_CHARS, `must be at least ${MIN_PASSWORD_CHARS} characters`)
    .max(200, 'must be at most 200 characters')
    .refine((p) => Buffer.byteLength(p, 'utf8') <= MAX_PASSWORD_BYTES, `must be at most ${MAX_PASSWORD_BYTES} bytes (UTF-8)`),
  name: z.string().trim().min(1).max(200).optional(),
  /** A team invitation's token (required when SIGNUP=invite): the account joins that team. */
  invite_token: z.string().min(1, 'must not be empty').max(200).optional(),
});

export const LoginSchema = z.object({
  email: z.string().trim().toLowerCase().min(1, 'is required').max(254),
  // Up to 200: accounts registered before the 72-byte rule may have longer passwords (bcrypt reads the first 72 bytes).
  password: z.string().min(1, 'is required').max(200),
});

/** DELETE /api/auth/me: the account's password, confirmed. */
export const DeleteAccountSchema = z.object({
  password: z.string().min(1, 'is required').max(200),
});

const ISSUER = 'agent-factory';
const AUDIENCE = 'agent-factory';

export interface AccessToken {
  token: string;
  expiresIn: number;
}

/** What a valid token says: whose it is and which of the user's token versions it belongs to. */
export interface TokenClaims {
  userId: string;
  /**
   * The user's token version when it was issued (claim `ver`). Bumping the
   * stored version (logout-all) revokes every earlier token. Tokens from
   * before versions existed have no claim and count as version 0.
   */
  version: number;
}

export class TokenService {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(userId: string, version: number, now = Date.now()): Promise<AccessToken> {
    const iat = Math.floor(now / 1000);
    const token = await new SignJWT({ ver: version })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.key);
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The claims of a valid token; UNAUTHENTICATED naming the reason otherwise. */
  async verify(token: string): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
      if (typeof payload.sub !== 'string' || !payload.sub) throw new AppError('UNAUTHENTICATED', 'token has no subject');
      const ver = payload.ver ?? 0;
      if (typeof ver !== 'number' || !Number.isSafeInteger(ver) || ver < 0) throw new AppError('UNAUTHENTICATED', 'invalid token');
      return { userId: payload.sub, version: ver };
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
