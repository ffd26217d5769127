import { corsOptions } from './cors.js';

function allows(origins: Parameters<typeof corsOptions>[0], origin: string | undefined): boolean {
  const options = corsOptions(origins);
  let allowed = false;
  (options!.origin as (o: string | undefined, cb: (e: Error | null, a?: boolean) => void) => void)(origin, (_e, a) => (allowed = a === true));
  return allowed;
}

describe('corsOptions', () => {
  it('sends no CORS headers at all when no origin is configured', () => {
    expect(corsOptions([])).toBeUndefined();
  });

  it('allows exactly the listed origins, never with credentials', () => {
    expect(allows(['https://app.example.com'], 'https://app.example.com')).toBe(true);
    expect(allows(['https://app.example.com'], 'https://evil.example.com')).toBe(false);
    expect(allows(['https://app.example.com'], undefined)).toBe(false);
    expect(corsOptions(['https://app.example.com'])!.credentials).toBe(false);
  });

  it('* allows any origin, still without credentials', () => {
    expect(allows('*', 'https://anything.example')).toBe(true);
    expect(corsOptions('*')!.credentials).toBe(false);
  });
});
