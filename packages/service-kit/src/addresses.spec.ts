import { scrubAddresses } from './addresses.js';

describe('scrubAddresses', () => {
  it.each([
    ['connect ECONNREFUSED 127.0.0.1:50051', 'connect ECONNREFUSED [internal address]'],
    ['dial [::1]:50052 failed', 'dial [internal address] failed'],
    ['to localhost:4222', 'to [internal address]'],
    ['planner:50051 is down', '[internal address] is down'],
    ['orchestrator.default.svc.cluster.local:50052', '[internal address]'],
    ['socket unix:/tmp/grpc.sock gone', 'socket [internal address] gone'],
    ['host 10.1.2.3', 'host [internal address]'],
  ])('%s', (text, expected) => {
    expect(scrubAddresses(text)).toBe(expected);
  });

  it('leaves ordinary text', () => {
    expect(scrubAddresses('steps[1].inputs.q: unknown step; retry in 5 s')).toBe('steps[1].inputs.q: unknown step; retry in 5 s');
  });
});
