import { ConnectorError } from './connector-error.js';
import {
  classifyAddress,
  decideEgress,
  DEFAULT_EGRESS_POLICY,
  egressPolicyFrom,
  egressRefused,
  parseEgressAllowList,
  schemeRefusal,
  type AddressCategory,
  type EgressPolicy,
} from './egress-policy.js';

describe('classifyAddress', () => {
  it.each<[string, AddressCategory]>([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2002:7f00:1::1', 'reserved'],
    ['100::1', 'reserved'],
  ])('%s is %s', (ip, category) => {
    expect(classifyAddress(ip)?.category).toBe(category);
  });

  it('172.15.x and 172.32.x are outside 172.16/12', () => {
    expect(classifyAddress('172.15.255.255')?.category).toBe('public');
    expect(classifyAddress('172.32.0.0')?.category).toBe('public');
    expect(classifyAddress('100.63.255.255')?.category).toBe('public');
    expect(classifyAddress('100.128.0.0')?.category).toBe('public');
  });

  it('classifies IPv6 forms that embed an IPv4 address by the IPv4 address they reach', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toEqual({
      category: 'loopback',
      address: '::ffff:7f00:1',
      embeddedIPv4: '127.0.0.1',
    });
    expect(classifyAddress('::ffff:7f00:1')?.category).toBe('loopback');
    expect(classifyAddress('::ffff:10.1.2.3')?.category).toBe('private');
    expect(classifyAddress('::ffff:169.254.169.254')?.category).toBe('metadata');
    expect(classifyAddress('::ffff:0:127.0.0.1')?.category).toBe('loopback');
    expect(classifyAddress('64:ff9b::10.0.0.1')?.category).toBe('private');
    expect(classifyAddress('64:ff9b::8.8.8.8')?.category).toBe('public');
    expect(classifyAddress('::ffff:8.8.8.8')?.category).toBe('public');
  });

  it('refuses the deprecated IPv4-compatible form ::a.b.c.d', () => {
    // The URL parser writes [::127.0.0.1] as [::7f00:1].
    expect(new URL('http://[::127.0.0.1]/').hostname).toBe('[::7f00:1]');
    expect(classifyAddress('::7f00:1')?.category).toBe('reserved');
    expect(classifyAddress('::808:808')?.category).toBe('reserved');
    // ipaddr.js reads the dotted form as IPv4-mapped: refused either way.
    expect(classifyAddress('::127.0.0.1')?.category).toBe('loopback');
  });

  it('accepts bracketed IPv6 and returns undefined for anything that is not a strictly written IP', () => {
    expect(classifyAddress('[::1]')?.category).toBe('loopback');
    for (const bad of ['', 'localhost', 'example.com', '127.1', '2130706433', '0x7f.0.0.1', '1.2.3.4.5', '::g', '256.1.1.1']) {
      expect(classifyAddress(bad)).toBeUndefined();
    }
  });
});

describe('classifyAddress memo', () => {
  it('gives the same frozen answer for the same text, and keeps answering right past its size bound', () => {
    const first = classifyAddress('10.1.2.3');
    expect(classifyAddress('10.1.2.3')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(classifyAddress('not-an-ip')).toBeUndefined();
    expect(classifyAddress('not-an-ip')).toBeUndefined();
    for (let i = 0; i < 5000; i++) classifyAddress(`100.${(i >> 8) & 255}.${i & 255}.1`);
    expect(classifyAddress('10.1.2.3')).toEqual({ category: 'private', address: '10.1.2.3' });
    expect(classifyAddress('100.64.0.1')).toEqual({ category: 'cgnat', address: '100.64.0.1' });
    expect(classifyAddress('8.8.8.8')).toEqual({ category: 'public', address: '8.8.8.8' });
  });

  it('decides for host names without treating them as addresses', () => {
    const policy = { entries: [] };
    expect(decideEgress(policy, { host: 'api.example.com', port: 443, address: '93.184.216.34' })).toEqual({
      allowed: true,
      category: 'public',
    });
    expect(decideEgress(policy, { host: '127.0.0.1.nip.io', port: 80, address: '127.0.0.1' })).toMatchObject({
      allowed: false,
      reason: '127.0.0.1.nip.io resolves to 127.0.0.1, a loopback address',
    });
  });
});

describe('parseEgressAllowList', () => {
  const ok = (text: string): EgressPolicy => {
    const r = parseEgressAllowList(text);
    if (!r.ok) throw new Error(r.errors.join('; '));
    return r.policy;
  };

  it('is empty for an empty or blank value and ignores empty items', () => {
    expect(ok('').entries).toEqual([]);
    expect(ok('   ').entries).toEqual([]);
    expect(parseEgressAllowList(undefined)).toEqual({ ok: true, policy: { entries: [] } });
    expect(ok('127.0.0.1, ,').entries).toHaveLength(1);
  });

  it('parses IPs, CIDRs, host:port and scoped entries', () => {
    const policy = ok(
      '127.0.0.1, ::1, 10.0.0.0/8, fc00::/7, api.internal:8443, 10.1.2.3:5432, [::1]:8080, [fd00::5], fec-mirror=192.168.0.0/16, API.Corp.:443',
    );
    expect(policy.entries.map((e) => [e.kind, e.connectorId])).toEqual([
      ['ip', undefined],
      ['ip', undefined],
      ['cidr', undefined],
      ['cidr', undefined],
      ['host_port', undefined],
      ['host_port', undefined],
      ['host_port', undefined],
      ['ip', undefined],
      ['cidr', 'fec-mirror'],
      ['host_port', undefined],
    ]);
    expect(policy.entries[4]).toMatchObject({ host: 'api.internal', isIp: false, port: 8443 });
    expect(policy.entries[5]).toMatchObject({ host: '10.1.2.3', isIp: true, port: 5432 });
    expect(policy.entries[6]).toMatchObject({ host: '::1', isIp: true, port: 8080 });
    expect(policy.entries[9]).toMatchObject({ host: 'api.corp', port: 443 });
  });

  it.each([
    ['10.0.0.0/33', 'prefix length must be a whole number from 0 to 32'],
    ['fc00::/129', 'from 0 to 128'],
    ['10.0.0.0/x', 'prefix length'],
    ['nothost/8', 'not a valid CIDR range'],
    ['api.internal', 'a hostname needs a port, e.g. "api.internal:443"'],
    ['api.internal:0', 'the port must be a whole number from 1 to 65535, got "0"'],
    ['api.internal:70000', 'from 1 to 65535'],
    ['api.internal:', 'the port must be'],
    ['127.1', 'four decimal parts'],
    ['127.1:80', 'four decimal parts'],
    ['Bad_Id=10.0.0.1', '"Bad_Id" is not a connector id'],
    ['fec=', 'nothing to allow after "="'],
    ['::1:8080:zz', 'not a valid IPv6 address'],
    ['[10.0.0.1]:80', 'brackets must enclose an IPv6 address'],
    ['[::1]:99999', 'the port must be'],
    ['http://x', 'expected an IP address, a CIDR range or host:port'],
    ['under score!:80', 'is not a valid hostname'],
  ])('refuses %s', (entry, message) => {
    const r = parseEgressAllowList(`127.0.0.1,${entry}`);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors).toHaveLength(1);
      expect(r.errors[0]).toContain(`entry 2 ("${entry}")`);
      expect(r.errors[0]).toContain(message);
    }
  });

  it('reports every bad entry', () => {
    const r = parseEgressAllowList('a,b/1,10.0.0.1');
    expect(r).toEqual({ ok: false, errors: [expect.stringContaining('entry 1'), expect.stringContaining('entry 2')] });
  });

  it('egressPolicyFrom throws one error naming the variable', () => {
    expect(() => egressPolicyFrom('10.0.0.0/40')).toThrow(/^CONNECTOR_EGRESS_ALLOW: entry 1 \("10\.0\.0\.0\/40"\)/);
    expect(egressPolicyFrom('10.0.0.1').entries).toHaveLength(1);
  });
});

describe('decideEgress', () => {
  const target = (address: string, extra: Partial<{ host: string; port: number; connectorId: string }> = {}) => ({
    host: extra.host ?? address,
    port: extra.port ?? 443,
    address,
    ...(extra.connectorId ? { connectorId: extra.connectorId } : {}),
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

  it('scoped entries apply to their connector only', () => {
    const policy = egressPolicyFrom('fec-mirror=10.0.0.0/8,127.0.0.1');
    expect(decideEgress(policy, target('10.1.1.1', { connectorId: 'fec-mirror' }))).toMatchObject({
      allowed: true,
      allowedBy: 'fec-mirror=10.0.0.0/8',
    });
    expect(decideEgress(policy, target('10.1.1.1', { connectorId: 'other' })).allowed).toBe(false);
    expect(decideEgress(policy, target('10.1.1.1')).allowed).toBe(false);
    expect(decideEgress(policy, target('127.0.0.1', { connectorId: 'other' })).allowed).toBe(true);
  });
});

describe('schemeRefusal and egressRefused', () => {
  it('allows http and https only', () => {
    expect(schemeRefusal('http:')).toBeUndefined();
    expect(schemeRefusal('https:')).toBeUndefined();
    expect(schemeRefusal('file:')).toBe('the scheme "file" is not allowed (only http and https)');
    expect(schemeRefusal('gopher:')).toContain('"gopher"');
  });

  it('builds a non-retryable FAILED_PRECONDITION naming the host and, when it can help, the variable', () => {
    const err = egressRefused('127.0.0.1:8080', '127.0.0.1 is a loopback address', true);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe(
      'egress to 127.0.0.1:8080 refused: 127.0.0.1 is a loopback address; an operator can allow it with CONNECTOR_EGRESS_ALLOW',
    );
    expect(egressRefused('x', 'the scheme "file" is not allowed', false).message).toBe(
      'egress to x refused: the scheme "file" is not allowed',
    );
  });
});
