/**
 * A service's side of principal tokens: a signer for its outgoing gRPC calls
 * (tokens cached per principal for half their lifetime, so a call costs a map
 * lookup) and a verifier for incoming ones (verified tokens cached until they
 * expire, bounded).
 */
import { AppError } from '../errors.js';
import { LruCache } from './lru.js';
import { MIN_SECRET_LENGTH, mintPrincipalToken, PrincipalTokenError, verifyPrincipalToken, type PrincipalClaims, type TokenPrincipal } from './principal-token.js';

/** gRPC metadata key that carries the principal token. */
export const PRINCIPAL_TOKEN_METADATA = 'af-principal-token';
/** User ids of services and operators start with this; the gateway never acts for one. */
export const SYSTEM_PRINCIPAL_PREFIX = 'system:';
/** Default lifetime of tokens services mint for their own calls. */
export const DEFAULT_TOKEN_TTL_SECONDS = 60;

/** `system:<name>`: the principal a service acts as when a call is not for a user. */
export function systemPrincipal(name: string): TokenPrincipal {
  return { userId: `${SYSTEM_PRINCIPAL_PREFIX}${name}`, teamIds: [] };
}

/** Puts a principal token on outgoing calls (createGrpcClient's `auth`). */
export interface PrincipalSigner {
  /** The token for a request carrying `principal` (absent or empty user id: the caller's own identity). */
  tokenFor(principal: TokenPrincipal | undefined): string;
}

/** Checks incoming tokens (startGrpcServer's `auth`). */
export interface PrincipalVerifier {
  /** The claims of a valid token; UNAUTHENTICATED AppError naming the reason otherwise. */
  verify(token: string): PrincipalClaims;
}

export interface ServiceAuthOptions {
  /** SERVICE_AUTH_SECRET: signs and verifies. */
  secret: string;
  /** SERVICE_AUTH_SECRET_PREVIOUS: also accepted when verifying, never used to sign (rotation). */
  previousSecret?: string | undefined;
  /** This service's name: `iss` of its tokens, and `system:<name>` for calls not made for a user. */
  service: string;
  /** Lifetime of minted tokens (default 60 s). */
  ttlSeconds?: number;
  /**
   * Refuse to sign a `system:*` principal taken from a request (the gateway:
   * users never act as a service or the operator). The service's own
   * `system:<service>` is still used for calls without a principal.
   */
  refuseSystemPrincipals?: boolean;
  /** Entries in each cache (default 10,000). */
  cacheSize?: number;
  now?: () => number;
}

export class ServiceAuth implements PrincipalSigner, PrincipalVerifier {
  readonly service: string;
  private readonly secrets: string[];
  private readonly ttlSeconds: number;
  private readonly now: () => number;
  private readonly minted: LruCache<string, { token: string; renewAtMs: number }>;
  private readonly verified: LruCache<string, PrincipalClaims>;

  constructor(private readonly options: ServiceAuthOptions) {
    if (options.secret.length < MIN_SECRET_LENGTH) throw new Error(`SERVICE_AUTH_SECRET must be at least ${MIN_SECRET_LENGTH} characters`);
    this.service = options.service;
    this.secrets = [options.secret, ...(options.previousSecret ? [options.previousSecret] : [])];
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
    this.now = options.now ?? Date.now;
    this.minted = new LruCache(options.cacheSize ?? 10_000);
    this.verified = new LruCache(options.cacheSize ?? 10_000);
  }

  tokenFor(principal: TokenPrincipal | undefined): string {
    const p = principal?.userId ? { userId: principal.userId, teamIds: principal.teamIds ?? [] } : systemPrincipal(this.service);
    if (principal?.userId && this.options.refuseSystemPrincipals && p.userId.startsWith(SYSTEM_PRINCIPAL_PREFIX)) {
      throw new AppError('PERMISSION_DENIED', `${this.service} does not act for ${SYSTEM_PRINCIPAL_PREFIX}* principals`);
    }
    const key = `${p.userId}\u0000${p.teamIds.join('\u0000')}`;
    const now = this.now();
    const cached = this.minted.get(key);
    if (cached && cached.renewAtMs > now) return cached.token;
    return this.mint(p, this.ttlSeconds, key, now);
  }

  /** A fresh token for `principal` lasting `ttlSeconds` (the gateway's API-key exchange); not cached. */
  mintFor(principal: TokenPrincipal, ttlSeconds: number): string {
    return this.mint(principal, ttlSeconds, undefined, this.now());
  }

  verify(token: string): PrincipalClaims {
    const now = this.now();
    const hit = this.verified.get(token);
    if (hit) {
      if (hit.expiresAt * 1000 > now) return hit;
      this.verified.delete(token);
    }
    try {
      const claims = verifyPrincipalToken(token, this.secrets, now);
      this.verified.set(token, claims);
      return claims;
    } catch (err) {
      if (err instanceof PrincipalTokenError) throw new AppError('UNAUTHENTICATED', `invalid principal token: ${err.reason}`);
      throw err;
    }
  }

  private mint(principal: TokenPrincipal, ttlSeconds: number, cacheKey: string | undefined, now: number): string {
    let token: string;
    try {
      token = mintPrincipalToken(this.options.secret, { principal, issuer: this.service, ttlSeconds }, now);
    } catch (err) {
      if (err instanceof PrincipalTokenError) throw new AppError('INVALID_ARGUMENT', `cannot sign the principal: ${err.reason}`);
      throw err;
    }
    // Renew at half the lifetime: a cached token always has >= ttl/2 left when sent.
    if (cacheKey !== undefined) this.minted.set(cacheKey, { token, renewAtMs: now + (ttlSeconds * 1000) / 2 });
    return token;
  }
}

/** A signer that sends one token obtained elsewhere (an API-key exchange at the gateway). */
export function staticPrincipalToken(token: string): PrincipalSigner {
  return { tokenFor: () => token };
}
