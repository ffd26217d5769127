import { CAPABILITY_EGRESS, egressPolicyFrom } from './allow-list.js';
import { endpointRefusal, formatHostPort, parseGrpcTarget } from './grpc-target.js';

const ALICE = '8f14e45f-ceea-467f-a0e6-9b3c1f2a7d10';
const BOB = '1c2d3e4f-0000-4000-8000-00000000b0b0';

describe('parseGrpcTarget', () => {
  it.each([
    ['agent.internal:50070', { host: 'agent.internal', port: 50070, literal: false }],
    ['Agent.Internal.:50070', { host: 'agent.internal', port: 50070, literal: false }],
    ['localhost:9000', { host: 'localhost', port: 9000, literal: false }],
    ['127.0.0.1:9000', { host: '127.0.0.1', port: 9000, literal: true }],
    ['[::1]:9000', { host: '::1', port: 9000, literal: true }],
    ['dns:agent.internal:443', { host: 'agent.internal', port: 443, literal: false }],
    ['dns:///agent.internal:443', { host: 'agent.internal', port: 443, literal: false }],
    ['ipv4:10.0.0.7:50070', { host: '10.0.0.7', port: 50070, literal: true }],
    ['ipv6:[fd00::7]:50070', { host: 'fd00::7', port: 50070, literal: true }],
    ['ipv4:169.254.169.254:80', { host: '169.254.169.254', port: 80, literal: true }],
  ])('reads %s', (endpoint, target) => {
    expect(parseGrpcTarget(endpoint)).toEqual({ ok: true, target });
  });

  it.each([
    ['unix:/var/run/docker.sock', '"unix:" targets are not allowed: an agent endpoint must be a TCP host:port'],
    ['unix:///tmp/pg/.s.PGSQL.5432', '"unix:" targets are not allowed'],
    ['UNIX:/tmp/x', '"unix:" targets are not allowed'],
    ['unix-abstract:grpc', '"unix-abstract:" targets are not allowed'],
    ['vsock:3:9000', '"vsock:" targets are not allowed'],
    ['xds:///agent', 'the scheme "xds" is not allowed'],
    ['http://agent:80', 'the scheme "http" is not allowed'],
    ['dns://8.8.8.8/agent.internal:443', 'a DNS server in the target (dns://server/…) is not supported'],
    ['ipv4:10.0.0.7:1,10.0.0.8:1', 'name one address, not a list'],
    ['ipv4:agent.internal:1', 'ipv4: must be followed by an IPv4 address and a port'],
    ['ipv6:10.0.0.7:1', 'ipv6: must be followed by an IPv6 address in brackets and a port'],
    ['agent.internal', 'must be host:port'],
    ['agent.internal:0', 'the port must be a whole number from 1 to 65535, got "0"'],
    ['agent.internal:99999', 'the port must be'],
    ['::1:9000', 'must be host:port (an IPv6 address in brackets'],
    ['[10.0.0.1]:80', 'brackets must enclose an IPv6 address'],
    ['127.1:80', 'four decimal parts'],
    ['bad_host!:80', 'is not a valid hostname'],
    ['', 'must not be empty'],
  ])('refuses %s', (endpoint, reason) => {
    const r = parseGrpcTarget(endpoint);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });
});

describe('endpointRefusal (registration)', () => {
  const none = egressPolicyFrom('', CAPABILITY_EGRESS);

  it('refuses metadata, loopback (the database port too) and private literals with the policy reason and variable', () => {
    expect(endpointRefusal(none, '169.254.169.254:80', { owner: ALICE, id: 'writer' })).toBe(
      'egress to 169.254.169.254:80 refused: 169.254.169.254 is a cloud metadata address; an operator can allow it with CAPABILITY_EGRESS_ALLOW',
    );
    expect(endpointRefusal(none, '127.0.0.1:5432', { owner: ALICE, id: 'writer' })).toContain('127.0.0.1 is a loopback address');
    expect(endpointRefusal(none, 'ipv6:[::ffff:10.0.0.1]:1', { owner: ALICE, id: 'writer' })).toContain('a private network address');
    expect(endpointRefusal(none, '0.0.0.0:50070', { owner: ALICE, id: 'writer' })).toBe(
      'egress to 0.0.0.0:50070 refused: 0.0.0.0 is the unspecified address, which capability endpoints may never reach',
    );
  });

  it('passes public literals and hostnames (their addresses are checked when dialled)', () => {
    expect(endpointRefusal(none, '93.184.216.34:443', { owner: ALICE, id: 'writer' })).toBeUndefined();
    expect(endpointRefusal(none, 'localhost:50070', { owner: ALICE, id: 'writer' })).toBeUndefined();
  });

  it('applies scoped entries to their owner and capability only', () => {
    const policy = egressPolicyFrom(`${ALICE}/writer=10.0.0.7:50070`, CAPABILITY_EGRESS);
    expect(endpointRefusal(policy, '10.0.0.7:50070', { owner: ALICE, id: 'writer' })).toBeUndefined();
    expect(endpointRefusal(policy, '10.0.0.7:50070', { owner: BOB, id: 'writer' })).toContain('10.0.0.7 is a private network address');
    expect(endpointRefusal(policy, '10.0.0.7:50071', { owner: ALICE, id: 'writer' })).toContain('refused');
  });

  it('returns the target refusal for a socket', () => {
    expect(endpointRefusal(egressPolicyFrom('0.0.0.0/0', CAPABILITY_EGRESS), 'unix:/tmp/x.sock', { owner: ALICE, id: 'w' })).toContain('"unix:" targets are not allowed');
  });

  it('formatHostPort brackets IPv6', () => {
    expect(formatHostPort('::1', 80)).toBe('[::1]:80');
    expect(formatHostPort('a.b', 80)).toBe('a.b:80');
  });
});
