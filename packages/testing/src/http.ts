/** JSON over HTTP for tests: returns status and parsed body, never throws on 4xx/5xx. */
export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function http<T = any>(
  method: string,
  url: string,
  /** timeoutMs: abort (rejecting with a TimeoutError) when no full answer arrived in time. */
  options: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string; timeoutMs?: number } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(url, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(options.timeoutMs !== undefined ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** A registered, logged-in user of a stack's gateway. */
export interface GatewayUser {
  id: string;
  email: string;
  token: string;
}

/** Registers `email` at the gateway (201 expected) and logs in; throws naming the status otherwise. */
export async function registerUser(gatewayUrl: string, email: string, password = 'correct horse battery staple'): Promise<GatewayUser> {
  const reg = await http('POST', `${gatewayUrl}/api/auth/register`, { body: { email, password } });
  if (reg.status !== 201) throw new Error(`register ${email} failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await http('POST', `${gatewayUrl}/api/auth/login`, { body: { email, password } });
  if (login.status !== 200) throw new Error(`login ${email} failed: ${login.status} ${JSON.stringify(login.body)}`);
  return { id: login.body.user.id as string, email, token: login.body.access_token as string };
}
