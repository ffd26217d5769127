import { parseMonitor } from './monitor-config.js';

const detect = [{ step: 'new_filings', action: 'detect_new_data' }, { step: 'summarise', action: undefined }];

describe('parseMonitor', () => {
  it('parses interval, active hours and the suppress_if_empty default', () => {
    expect(parseMonitor({ interval: '15m', active_hours: { start: '08:00', end: '22:00', timezone: 'America/New_York' } }, detect)).toEqual({
      config: { interval: 900_000, active_hours: { start: '08:00', end: '22:00', timezone: 'America/New_York' }, suppress_if_empty: true },
    });
  });

  it('refuses a monitor without a detection step', () => {
    expect(parseMonitor({ interval: '1h' }, [{ step: 'a', action: 'call_connector' }])).toEqual({ violations: [{ field: 'steps', reason: expect.stringContaining('at least one detection step') }] });
  });

  it('names each bad field', () => {
    const r = parseMonitor({ interval: '30s', active_hours: { start: '8am', end: '22:00', timezone: 'Mars/Base' }, colour: 'red' }, detect);
    expect('violations' in r && r.violations.map((v) => v.field).sort()).toEqual(['monitor_config', 'monitor_config.active_hours.start', 'monitor_config.active_hours.timezone', 'monitor_config.interval']);
  });
});
