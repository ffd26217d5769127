import { Writable } from 'node:stream';
import { createLogger, registerSecret, scrubSecrets } from './logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, log: createLogger('test', 'debug', stream) };
}

describe('logger redaction', () => {
  it('redacts credential fields by key', () => {
    const { lines, log } = capture();
    log.info({ password: 'p4ssw0rd!', user: { api_key: 'k-123456' }, headers: { authorization: 'Bearer abc' } }, 'x');
    const out = lines.join('');
    expect(out).not.toContain('p4ssw0rd!');
    expect(out).not.toContain('k-123456');
    expect(out).toContain('[REDACTED]');
  });

  it('masks registered secret values wherever they appear', () => {
    const { lines, log } = capture();
    registerSecret('sk-live-very-secret-value');
    log.warn({ url: 'https://api.example.com/x?api_key=sk-live-very-secret-value', nested: { deep: ['sk-live-very-secret-value'] } }, 'called');
    log.error('message mentions sk-live-very-secret-value too');
    const out = lines.join('');
    expect(out).not.toContain('sk-live-very-secret-value');
    expect(out.match(/\[REDACTED\]/g)!.length).toBeGreaterThanOrEqual(3);
  });

  it('scrubSecrets leaves other values alone and ignores tiny secrets', () => {
    registerSecret('ab');
    expect(scrubSecrets({ a: 'ab', n: 1, d: null })).toEqual({ a: 'ab', n: 1, d: null });
  });

  it('masks a registered short secret as a whole value without mangling words that contain it', () => {
    const { lines, log } = capture();
    registerSecret('tiger');
    log.warn({ detail: 'password tiger rejected' }, 'the tigers are fine; password=tiger');
    const out = lines.join('');
    expect(out).toContain('password [REDACTED] rejected');
    expect(out).toContain('the tigers are fine; password=[REDACTED]');
    expect(scrubSecrets('ligertiger tiger')).toBe('ligertiger [REDACTED]');
  });
});
