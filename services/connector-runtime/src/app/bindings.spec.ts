import { AppError } from '@af/service-kit';
import { parseConnectorDefinition, type ConnectorDefinition } from '@af/connectors';
import { withOverrides } from './bindings.js';

function definition(): ConnectorDefinition {
  const parsed = parseConnectorDefinition({
    id: 'fec-contributions',
    name: 'FEC',
    type: 'rest_api',
    connection: {
      base_url: 'https://api.open.fec.gov/v1',
      auth: { type: 'api_key', key_param: 'api_key', in: 'query' },
      rate_limit: { requests_per_second: 10 },
      headers: { 'x-client': 'af' },
    },
    endpoints: { search: { method: 'GET', path: '/search' } },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

const connection = (def: ConnectorDefinition) => def.connection as Record<string, unknown>;

describe('withOverrides', () => {
  it('returns the definition itself when there is nothing to override', () => {
    const def = definition();
    expect(withOverrides(def, {})).toBe(def);
  });

  it('merges objects key by key, replaces anything else, and leaves the base untouched', () => {
    const def = definition();
    const merged = withOverrides(def, { timeout_seconds: 5, headers: { 'x-team': 'research' }, rate_limit: { requests_per_second: 2 } });
    expect(connection(merged)).toMatchObject({
      base_url: 'https://api.open.fec.gov/v1',
      timeout_seconds: 5,
      headers: { 'x-client': 'af', 'x-team': 'research' },
      rate_limit: { requests_per_second: 2 },
    });
    expect(connection(def).timeout_seconds).toBeUndefined();
    expect(connection(def).headers).toEqual({ 'x-client': 'af' });
  });

  it('hands back the same merged object for the same definition and overrides, a new one when either differs', () => {
    const def = definition();
    const first = withOverrides(def, { timeout_seconds: 5 });
    expect(withOverrides(def, { timeout_seconds: 5 })).toBe(first);
    const other = withOverrides(def, { timeout_seconds: 6 });
    expect(other).not.toBe(first);
    expect(connection(other).timeout_seconds).toBe(6);
    const sameContent = definition();
    expect(withOverrides(sameContent, { timeout_seconds: 5 })).not.toBe(first);
    expect(withOverrides(sameContent, { timeout_seconds: 5 })).toEqual(first);
  });

  it('refuses overrides that make the definition invalid, naming config_overrides, every time', () => {
    const def = definition();
    for (let i = 0; i < 2; i++) {
      let err: unknown;
      try {
        withOverrides(def, { base_url: 'not a url' });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect(JSON.stringify((err as AppError).violations)).toContain('config_overrides.base_url');
    }
  });
});
