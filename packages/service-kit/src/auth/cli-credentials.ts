/**
 * How command-line tools that call our gRPC services authenticate, the same
 * two ways every caller does:
 *
 * - an API key (`--api-key` / AF_API_KEY) exchanged at the gateway
 *   (`--gateway` / AF_GATEWAY_URL, POST /api/v1/auth/service-token) for a
 *   principal token of the key's user; or
 * - SERVICE_AUTH_SECRET in the environment (operators inside the cluster),
 *   which signs the principal each request names (`--user`).
 */
import { ServiceAuth, staticPrincipalToken, type PrincipalSigner } from './service-auth.js';

export interface CliCredentials {
  apiKey?: string | undefined;
  gatewayUrl?: string | undefined;
  secret?: string | undefined;
  /** Name of the tool: `iss` of the tokens it mints with the secret. */
  tool: string;
}

export interface CliAuth {
  signer: PrincipalSigner;
  /** `api-key`: the token's user is the key's, whatever requests name; `secret`: requests name the principal. */
  via: 'api-key' | 'secret';
  /** The user id the gateway issued the token for (api-key only). */
  userId?: string;
}

/** Thrown with a message fit for the terminal (never containing the key or the secret). */
export class CliAuthError extends Error {
  override name = 'CliAuthError';
}

export async function cliAuth(credentials: CliCredentials, fetchFn: typeof fetch = fetch): Promise<CliAuth> {
  if (credentials.apiKey) {
    if (!credentials.gatewayUrl) throw new CliAuthError('an API key is exchanged at the gateway: give --gateway <url> or AF_GATEWAY_URL');
    const exchanged = await exchangeApiKey(credentials.gatewayUrl, credentials.apiKey, fetchFn);
    return { signer: staticPrincipalToken(exchanged.token), via: 'api-key', userId: exchanged.userId };
  }
  if (credentials.secret) {
    if (credentials.secret.length < 32) throw new CliAuthError('SERVICE_AUTH_SECRET must be at least 32 characters');
    return { signer: new ServiceAuth({ secret: credentials.secret, service: credentials.tool }), via: 'secret' };
  }
  throw new CliAuthError(
    'no credentials: give an API key (--api-key or AF_API_KEY, with --gateway or AF_GATEWAY_URL), or run where SERVICE_AUTH_SECRET is set (operators)',
  );
}

/** POST /api/v1/auth/service-token with the key; the principal token and its user. */
export async function exchangeApiKey(gatewayUrl: string, apiKey: string, fetchFn: typeof fetch = fetch): Promise<{ token: string; expiresIn: number; userId: string }> {
  let url: URL;
  try {
    url = new URL('/api/v1/auth/service-token', gatewayUrl);
  } catch {
    throw new CliAuthError(`the gateway URL '${gatewayUrl}' is not a URL (e.g. http://127.0.0.1:8080)`);
  }
  let res: Response;
  try {
    res = await fetchFn(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } });
  } catch (err) {
    throw new CliAuthError(`cannot reach the gateway at ${url.origin}: ${(err as Error).message}`);
  }
  const body = (await res.json().catch(() => null)) as { token?: unknown; expires_in?: unknown; principal?: { user_id?: unknown }; error?: { message?: unknown } } | null;
  if (!res.ok) throw new CliAuthError(`the gateway refused the API key (${res.status}): ${String(body?.error?.message ?? 'no detail')}`);
  if (typeof body?.token !== 'string') throw new CliAuthError('the gateway answered without a token');
  return { token: body.token, expiresIn: Number(body.expires_in), userId: String(body.principal?.user_id ?? '') };
}
