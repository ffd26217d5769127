import { decideOverlap, OVERLAP_POLICIES } from './overlap-policy.js';

describe('decideOverlap', () => {
  it.each(OVERLAP_POLICIES)('%s starts when nothing is active or buffered', (policy) => {
    expect(decideOverlap(policy, 0, 0)).toEqual({ action: 'start' });
  });

  it('skip drops the fire while a run is active', () => {
    expect(decideOverlap('skip', 1, 0)).toMatchObject({ action: 'skip' });
  });

  it('buffer_one keeps one fire, drops the next', () => {
    expect(decideOverlap('buffer_one', 1, 0)).toEqual({ action: 'buffer' });
    expect(decideOverlap('buffer_one', 1, 1)).toMatchObject({ action: 'skip', reason: expect.stringContaining('already buffered') });
  });

  it('buffer_all keeps every fire', () => {
    expect(decideOverlap('buffer_all', 1, 5)).toEqual({ action: 'buffer' });
  });

  it('a new fire never overtakes a buffered one, even with nothing active', () => {
    expect(decideOverlap('buffer_all', 0, 1)).toEqual({ action: 'buffer' });
    expect(decideOverlap('buffer_one', 0, 1)).toMatchObject({ action: 'skip' });
  });

  it('cancel_other cancels the active runs and waits for them; terminate_other starts at once', () => {
    expect(decideOverlap('cancel_other', 2, 0)).toEqual({ action: 'cancel_active', startNow: false });
    expect(decideOverlap('terminate_other', 2, 0)).toEqual({ action: 'cancel_active', startNow: true });
  });

  it('allow_all starts alongside active runs', () => {
    expect(decideOverlap('allow_all', 3, 0)).toEqual({ action: 'start' });
  });
});
