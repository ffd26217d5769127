import { uuidFrom } from './agent-runner.js';

describe('uuidFrom', () => {
  it('derives the same UUID from the same name, another from another', () => {
    const a = uuidFrom('u1:agent-run:key-1');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidFrom('u1:agent-run:key-1')).toBe(a);
    expect(uuidFrom('u2:agent-run:key-1')).not.toBe(a);
  });
});
