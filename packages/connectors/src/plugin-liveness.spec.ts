import { forgetAfterMs, liveWindowMs, pluginStatus } from './plugin-liveness.js';

describe('plugin liveness', () => {
  it('is active while the freshest heartbeat is at most three intervals old', () => {
    expect(liveWindowMs(10)).toBe(30_000);
    expect(pluginStatus({ enabled: true, freshestHeartbeatAgeMs: 0 }, 10)).toBe('active');
    expect(pluginStatus({ enabled: true, freshestHeartbeatAgeMs: 30_000 }, 10)).toBe('active');
    expect(pluginStatus({ enabled: true, freshestHeartbeatAgeMs: 30_001 }, 10)).toBe('inactive');
    expect(pluginStatus({ enabled: true, freshestHeartbeatAgeMs: undefined }, 10)).toBe('inactive');
  });

  it('is disabled when the operator switched it off, whatever its heartbeats', () => {
    expect(pluginStatus({ enabled: false, freshestHeartbeatAgeMs: 0 }, 10)).toBe('disabled');
  });

  it('forgets instances after ten intervals, and never sooner than five minutes', () => {
    expect(forgetAfterMs(1)).toBe(300_000);
    expect(forgetAfterMs(60)).toBe(600_000);
  });
});
