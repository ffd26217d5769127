import { cliAuth, CliAuthError } from './cli-credentials.js';
import { verifyPrincipalToken } from './principal-token.js';

const SECRET = 'c'.repeat(32);

function fakeFetch(status: number, body: unknown, seen: Array<{ url: string; init: RequestInit | undefined }> = []): typeof fetch {
  return (async (url: URL | string, init?: RequestInit) => {
    seen.push({ url: String(url), init });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof CliAuthError) return err.message;
    throw err;
  }
  throw new Error('expected a CliAuthError');
}

describe('cliAuth', () => {
  it('exchanges an API key at the gateway and sends the token it gets', async () => {
    const seen: Array<{ url: string; init: RequestInit | undefined }> = [];
    const auth = await cliAuth({ apiKey: 'afk_k', gatewayUrl: 'http://gw:8080/ignored', tool: 'load-catalog' }, fakeFetch(200, { token: 'tok', expires_in: 300, principal: { user_id: 'u1' } }, seen));
    expect([auth.via, auth.userId, auth.signer.tokenFor({ userId: 'someone-else', teamIds: [] })]).toEqual(['api-key', 'u1', 'tok']);
    expect(seen).toEqual([{ url: 'http://gw:8080/api/v1/auth/service-token', init: { method: 'POST', headers: { authorization: 'Bearer afk_k' } } }]);
  });

  it("reports the gateway's refusal without the key", async () => {
    const message = await refusal(cliAuth({ apiKey: 'afk_secret_value', gatewayUrl: 'http://gw', tool: 't' }, fakeFetch(401, { error: { message: 'the API key has been revoked' } })));
    expect(message).toBe('the gateway refused the API key (401): the API key has been revoked');
    expect(message).not.toContain('afk_secret_value');
  });

  it('needs a gateway URL for an API key', async () => {
    expect(await refusal(cliAuth({ apiKey: 'afk_k', tool: 't' }))).toMatch(/--gateway/);
    expect(await refusal(cliAuth({ apiKey: 'afk_k', gatewayUrl: 'not a url', tool: 't' }))).toMatch(/is not a URL/);
  });

  it('signs the requested principal with SERVICE_AUTH_SECRET', async () => {
    const auth = await cliAuth({ secret: SECRET, tool: 'load-catalog' });
    expect(auth.via).toBe('secret');
    expect(verifyPrincipalToken(auth.signer.tokenFor({ userId: 'system:catalog', teamIds: [] }), [SECRET])).toMatchObject({ principal: { userId: 'system:catalog' }, issuer: 'load-catalog' });
    expect(await refusal(cliAuth({ secret: 'short', tool: 't' }))).toMatch(/at least 32/);
  });

  it('names both ways when there are no credentials', async () => {
    expect(await refusal(cliAuth({ tool: 't' }))).toMatch(/no credentials: give an API key .*SERVICE_AUTH_SECRET/);
  });
});
