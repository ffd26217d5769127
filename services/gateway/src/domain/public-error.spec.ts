import { publicMessage } from './public-error.js';

describe('publicMessage', () => {
  const transport = (code: string, message: string) => ({ code, message, transport: true });

  it.each([
    ['UNAVAILABLE', 503, 'the planner service is unavailable; try again shortly'],
    ['DEADLINE_EXCEEDED', 504, 'the planner service did not answer in time; try again shortly'],
    ['CANCELLED', 499, 'the call to the planner service was cancelled'],
    ['RESOURCE_EXHAUSTED', 429, 'the planner service is overloaded; try again shortly'],
    ['INTERNAL', 500, 'the planner service failed to answer'],
  ])('says %s of a transport error without its text', (code, status, expected) => {
    const msg = publicMessage(transport(code, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:50051'), status, 'planner');
    expect(msg).toBe(expected);
  });

  it('names "a backend service" when the peer is not known', () => {
    expect(publicMessage(transport('UNAVAILABLE', 'connect ECONNREFUSED 127.0.0.1:50052'), 503)).toBe('a backend service is unavailable; try again shortly');
  });

  it('keeps the size figures of a message-size error', () => {
    expect(publicMessage(transport('PAYLOAD_TOO_LARGE', 'a message between services is too large (5000000 bytes; the limit is 4194304)'), 413, 'orchestrator')).toBe(
      'a message between services is too large (5000000 bytes; the limit is 4194304) (between the gateway and the orchestrator service)',
    );
  });

  it('scrubs addresses from other 5xx messages and leaves 4xx messages alone', () => {
    const peer = { code: 'UNAVAILABLE', message: 'connector call failed: connect ECONNREFUSED 10.0.3.7:5432', transport: false };
    expect(publicMessage(peer, 503)).toBe('connector call failed: connect ECONNREFUSED [internal address]');
    const input = { code: 'INVALID_ARGUMENT', message: 'endpoint 169.254.169.254:80 is not allowed', transport: false };
    expect(publicMessage(input, 400)).toBe(input.message);
  });
});
