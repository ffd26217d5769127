import { CAPABILITY_EGRESS, DEFAULT_EGRESS_POLICY, egressPolicyFrom, type EgressScope } from './allow-list.js';
import { decideEgress, egressRefusalMessage } from './decision.js';

const ALICE = '8f14e45f-ceea-467f-a0e6-9b3c1f2a7d10';
const BOB = '1c2d3e4f-0000-4000-8000-00000000b0b0';

describe('decideEgress', () => {
  const target = (address: string, extra: Partial<{ host: string; port: number; scope: EgressScope }> = {}) => ({
    host: extra.host ?? address,
    port: extra.port ?? 443,
    address,
    ...(extra.scope ? { scope: extra.scope } : {}),
  });

  it('allows public addresses with no allow-list', () => {
    expect(decideEgress(DEFAULT_EGRESS_POLICY, target('8.8.8.8', { host: 'dns.google' }))).toEqual({
      allowed: true,
      category: 'public',
    });
  });

  it('refuses loopback, private, link-local, CGNAT and metadata with a reason naming the address', () => {
    expect(decideEgress(DEFAULT_EGRESS_POLICY, target('127.0.0.1'))).toEqual({
      allowed: false,
      category: 'loopback',
      reason: '127.0.0.1 is a loopback address',
      allowable: true,
    });
    expect(decideEgress(DEFAULT_EGRESS_POLICY, target('10.0.0.5', { host: 'evil.example' }))).toMatchObject({
      allowed: false,
      reason: 'evil.example resolves to 10.0.0.5, a private network address',
    });
    expect(decideEgress(DEFAULT_EGRESS_POLICY, target('169.254.3.3'))).toMatchObject({ category: 'link_local', allowed: false });
    expect(decideEgress(DEFAULT_EGRESS_POLICY, target('100.64.1.1'))).toMatchObject({ category: 'cgnat', allowed: false });
    expect(decideEgress(DEFAULT_EGRESS_POLICY, target('169.254.169.254'))).toMatchObject({
      category: 'metadata',
      reason: '169.254.169.254 is a cloud metadata address',
    });
  });

  it('treats ::ffff:127.0.0.1 as loopback and shows the IPv4 address it reaches', () => {
    expect(decideEgress(DEFAULT_EGRESS_POLICY, target('::ffff:127.0.0.1', { host: '[::ffff:127.0.0.1]' }))).toMatchObject({
      allowed: false,
      category: 'loopback',
      reason: '::ffff:7f00:1 (IPv4 127.0.0.1) is a loopback address',
    });
  });

  it('never allows unspecified, multicast or broadcast, whatever the allow-list says', () => {
    const all = egressPolicyFrom('0.0.0.0/0,::/0,0.0.0.0,255.255.255.255,224.0.0.1');
    for (const ip of ['0.0.0.0', '::', '224.0.0.1', '255.255.255.255']) {
      expect(decideEgress(all, target(ip))).toMatchObject({ allowed: false, allowable: false });
    }
    expect(decideEgress(all, target('0.0.0.0')).allowed).toBe(false);
    expect((decideEgress(all, target('0.0.0.0')) as { reason: string }).reason).toContain('which connectors may never reach');
  });

  it('refuses a value that is not an IP address', () => {
    expect(decideEgress(DEFAULT_EGRESS_POLICY, target('not-an-ip'))).toMatchObject({
      allowed: false,
      category: 'invalid',
      allowable: false,
    });
  });

  it('allows an exact IP entry, on any port, including its IPv4-mapped form', () => {
    const policy = egressPolicyFrom('127.0.0.1');
    expect(decideEgress(policy, target('127.0.0.1', { port: 1234 }))).toEqual({
      allowed: true,
      category: 'loopback',
      allowedBy: '127.0.0.1',
    });
    expect(decideEgress(policy, target('::ffff:127.0.0.1')).allowed).toBe(true);
    expect(decideEgress(policy, target('127.0.0.2')).allowed).toBe(false);
    expect(decideEgress(policy, target('::1')).allowed).toBe(false);
  });

  it('allows addresses inside a CIDR entry and nothing outside it', () => {
    const policy = egressPolicyFrom('10.0.0.0/8,fc00::/7');
    expect(decideEgress(policy, target('10.200.1.1')).allowed).toBe(true);
    expect(decideEgress(policy, target('fd00::1')).allowed).toBe(true);
    expect(decideEgress(policy, target('192.168.1.1')).allowed).toBe(false);
    expect(decideEgress(policy, target('::ffff:10.1.1.1')).allowed).toBe(true);
  });

  it('opens a metadata address only when it is named exactly, never through a range', () => {
    expect(decideEgress(egressPolicyFrom('169.254.0.0/16,0.0.0.0/0'), target('169.254.169.254')).allowed).toBe(false);
    expect(decideEgress(egressPolicyFrom('169.254.0.0/16'), target('169.254.1.1')).allowed).toBe(true);
    expect(decideEgress(egressPolicyFrom('169.254.169.254'), target('169.254.169.254')).allowed).toBe(true);
    expect(decideEgress(egressPolicyFrom('169.254.169.254:80'), target('169.254.169.254', { port: 80 })).allowed).toBe(true);
  });

  it('host:port entries match the host name (or the address) and the port only', () => {
    const policy = egressPolicyFrom('api.internal:8443,10.9.9.9:5432,[::1]:8080');
    expect(decideEgress(policy, target('10.1.1.1', { host: 'API.internal.', port: 8443 })).allowed).toBe(true);
    expect(decideEgress(policy, target('10.1.1.1', { host: 'api.internal', port: 443 })).allowed).toBe(false);
    expect(decideEgress(policy, target('10.1.1.1', { host: 'other.internal', port: 8443 })).allowed).toBe(false);
    expect(decideEgress(policy, target('10.9.9.9', { host: 'db.internal', port: 5432 })).allowed).toBe(true);
    expect(decideEgress(policy, target('10.9.9.9', { port: 5433 })).allowed).toBe(false);
    expect(decideEgress(policy, target('::1', { host: '[::1]', port: 8080 })).allowed).toBe(true);
  });


  it("scoped entries apply to their owner's connector only: the same id under another owner gets nothing", () => {
    const policy = egressPolicyFrom(`${ALICE}/fec-mirror=10.0.0.0/8,${ALICE}/api=api.internal:8443,127.0.0.1`);
    expect(decideEgress(policy, target('10.1.1.1', { scope: { owner: ALICE, id: 'fec-mirror' } }))).toMatchObject({
      allowed: true,
      allowedBy: `${ALICE}/fec-mirror=10.0.0.0/8`,
    });
    expect(decideEgress(policy, target('10.1.1.1', { scope: { owner: BOB, id: 'fec-mirror' } }))).toMatchObject({
      allowed: false,
      reason: '10.1.1.1 is a private network address',
      allowable: true,
    });
    expect(decideEgress(policy, target('10.1.1.1', { scope: { owner: ALICE, id: 'other' } })).allowed).toBe(false);
    expect(decideEgress(policy, target('10.1.1.1')).allowed).toBe(false);
    expect(decideEgress(policy, target('10.1.1.1', { host: 'api.internal', port: 8443, scope: { owner: ALICE, id: 'api' } })).allowed).toBe(true);
    expect(decideEgress(policy, target('10.1.1.1', { host: 'api.internal', port: 8443, scope: { owner: BOB, id: 'api' } })).allowed).toBe(false);
    // Plain entries open to every tenant.
    expect(decideEgress(policy, target('127.0.0.1', { scope: { owner: BOB, id: 'other' } })).allowed).toBe(true);
    expect(decideEgress(policy, target('127.0.0.1')).allowed).toBe(true);
  });

  it('an owner id is compared whole: a prefix or a different case is another owner', () => {
    const policy = egressPolicyFrom(`${ALICE}/x=10.0.0.1`);
    expect(decideEgress(policy, target('10.0.0.1', { scope: { owner: ALICE.slice(0, 8), id: 'x' } })).allowed).toBe(false);
    expect(decideEgress(policy, target('10.0.0.1', { scope: { owner: ALICE.toUpperCase(), id: 'x' } })).allowed).toBe(false);
  });

  it('names what dials in never-allowed reasons', () => {
    const caps = egressPolicyFrom('0.0.0.0/0', CAPABILITY_EGRESS);
    expect(decideEgress(caps, target('0.0.0.0'))).toMatchObject({ reason: '0.0.0.0 is the unspecified address, which capability endpoints may never reach' });
  });
});

describe('egressRefusalMessage', () => {
  it('names the host and, when an entry can help, the variable of the list', () => {
    expect(egressRefusalMessage(DEFAULT_EGRESS_POLICY, '127.0.0.1:8080', '127.0.0.1 is a loopback address', true)).toBe(
      'egress to 127.0.0.1:8080 refused: 127.0.0.1 is a loopback address; an operator can allow it with CONNECTOR_EGRESS_ALLOW',
    );
    expect(egressRefusalMessage(egressPolicyFrom('', CAPABILITY_EGRESS), 'x:1', 'r', true)).toBe(
      'egress to x:1 refused: r; an operator can allow it with CAPABILITY_EGRESS_ALLOW',
    );
    expect(egressRefusalMessage(DEFAULT_EGRESS_POLICY, 'x', 'the scheme "file" is not allowed', false)).toBe('egress to x refused: the scheme "file" is not allowed');
  });
});
