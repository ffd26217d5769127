import { until } from './wait.js';

describe('until', () => {
  it('returns the first answer that is not undefined, polling until then', async () => {
    let calls = 0;
    const found = await until('the third call', async () => (++calls === 3 ? { calls } : undefined), 2_000, 5);
    expect(found).toEqual({ calls: 3 });
    expect(calls).toBe(3);
  });

  it('keeps falsy answers other than undefined (0, false, empty text)', async () => {
    expect(await until('zero', async () => 0)).toBe(0);
    expect(await until('false', async () => false)).toBe(false);
  });

  it('fails after the timeout naming what it waited for', async () => {
    await expect(until('the moon', async () => undefined, 30, 5)).rejects.toThrow('timed out after 30 ms waiting for the moon');
  });

  it('passes a failing probe on', async () => {
    await expect(until('x', () => Promise.reject(new Error('probe broke')))).rejects.toThrow('probe broke');
  });
});
