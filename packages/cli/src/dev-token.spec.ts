import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devRegistrationToken } from './dev-token.js';

function checkout(token?: string) {
  const root = mkdtempSync(join(tmpdir(), 'af-dev-token-'));
  mkdirSync(join(root, 'plugins', 'mine', 'src'), { recursive: true });
  if (token !== undefined) {
    mkdirSync(join(root, '.af-data'));
    writeFileSync(join(root, '.af-data', 'plugin-registration-token'), `${token}\n`);
  }
  return root;
}

describe('devRegistrationToken', () => {
  it("finds pnpm start's token in the nearest .af-data at or above the working directory", () => {
    const root = checkout('t0ken-from-start-1234');
    expect(devRegistrationToken(root, {})).toBe('t0ken-from-start-1234');
    expect(devRegistrationToken(join(root, 'plugins', 'mine', 'src'), {})).toBe('t0ken-from-start-1234');
  });

  it('reads AF_DATA_DIR instead when it is set (relative to the working directory)', () => {
    const root = checkout('in-the-checkout-000');
    const other = mkdtempSync(join(tmpdir(), 'af-data-'));
    writeFileSync(join(other, 'plugin-registration-token'), 'elsewhere-token-0000');
    expect(devRegistrationToken(root, { AF_DATA_DIR: other })).toBe('elsewhere-token-0000');
    expect(devRegistrationToken(root, { AF_DATA_DIR: 'nope' })).toBeUndefined();
  });

  it('is undefined without a file, or with an empty one', () => {
    expect(devRegistrationToken(checkout(), {})).toBeUndefined();
    expect(devRegistrationToken(checkout(''), {})).toBeUndefined();
  });
});
