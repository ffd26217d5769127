/** Agent profiles for E2E tests that bind connectors: a binding needs a real profile of the caller's. */
import { http, type Stack } from './skeleton.js';

/** Creates a profile with `handle` for the token's user and returns its id. */
export async function createProfile(stack: Stack, token: string, handle: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await http('POST', `${stack.gatewayUrl}/api/agent-factory/profiles`, { token, body: { name: handle, handle, ...extra } });
  if (res.status !== 201) throw new Error(`creating profile ${handle} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.profile.id as string;
}
