import { classifyAddress, type AddressCategory } from './address.js';
import { decideEgress } from './decision.js';
import { DEFAULT_EGRESS_POLICY } from './allow-list.js';

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
    const policy = DEFAULT_EGRESS_POLICY;
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
