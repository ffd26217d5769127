/**
 * Stream tokens: how a browser's EventSource, which cannot send an
 * Authorization header, opens a Server-Sent Events stream. A logged-in client
 * asks for a token bound to one stream path (POST /api/auth/stream-token) and
 * opens `<path>?stream_token=<token>`. The token is short-lived, signed with
 * the gateway's JWT key under an audience of its own (so it is never accepted
 * as a bearer token, nor a bearer token as a stream token), names the
 * account's token version (logout-all and account deletion revoke it like
 * any token), and is good only for GET on exactly the path it names.
 */
import { errors, jwtVerify, SignJWT } from 'jose';
import { AppError } from '@af/service-kit';

const ISSUER = 'agent-factory';
const STREAM_AUDIENCE = 'agent-factory-stream';
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** The GET routes that stream Server-Sent Events, the only paths a stream token may name. */
export const STREAM_PATHS: ReadonlyArray<{ pattern: RegExp; example: string }> = [
  { pattern: new RegExp(`^/api/v1/runs/${UUID}/events$`), example: '/api/v1/runs/{id}/events' },
];

/** Why `path` cannot be a stream token's path, or undefined. */
export function streamPathProblem(path: string): string | undefined {
  if (STREAM_PATHS.some((p) => p.pattern.test(path))) return undefined;
  return `must be the path of a Server-Sent Events route (${STREAM_PATHS.map((p) => p.example).join(', ')}), without query string`;
}

export interface StreamClaims {
  userId: string;
  version: number;
  path: string;
}

export class StreamTokens {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(userId: string, version: number, path: string, now = Date.now()): Promise<{ token: string; expiresIn: number }> {
    const problem = streamPathProblem(path);
    if (problem) throw AppError.invalid('path', problem);
    const iat = Math.floor(now / 1000);
    const token = await new SignJWT({ ver: version, path })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setAudience(STREAM_AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.key);
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The claims of a valid token for `path`; UNAUTHENTICATED naming the reason otherwise. */
  async verify(token: string, path: string, now = Date.now()): Promise<StreamClaims> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: STREAM_AUDIENCE, algorithms: ['HS256'], currentDate: new Date(now) }));
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw new AppError('UNAUTHENTICATED', 'stream_token expired: ask POST /api/auth/stream-token for a new one');
      throw new AppError('UNAUTHENTICATED', 'stream_token is not valid');
    }
    const { sub, ver, path: bound } = payload;
    if (typeof sub !== 'string' || !sub || typeof ver !== 'number' || !Number.isSafeInteger(ver) || ver < 0 || typeof bound !== 'string') {
      throw new AppError('UNAUTHENTICATED', 'stream_token is not valid');
    }
    if (bound !== path) throw new AppError('UNAUTHENTICATED', `stream_token was issued for ${bound}, not this path`);
    return { userId: sub, version: ver, path: bound };
  }
}
