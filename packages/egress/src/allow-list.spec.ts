import {
  CAPABILITY_EGRESS,
  CONNECTOR_EGRESS,
  egressPolicyFrom,
  parseEgressAllowList,
  scopedKeys,
  type EgressPolicy,
} from './allow-list.js';

const OWNER = '8f14e45f-ceea-467f-a0e6-9b3c1f2a7d10';

describe('parseEgressAllowList', () => {
  const ok = (text: string, kind = CONNECTOR_EGRESS): EgressPolicy => {
    const r = parseEgressAllowList(text, kind);
    if (!r.ok) throw new Error(r.errors.join('; '));
    return r.policy;
  };

  it('is empty for an empty or blank value and ignores empty items', () => {
    expect(ok('').entries).toEqual([]);
    expect(ok('   ').entries).toEqual([]);
    expect(parseEgressAllowList(undefined)).toEqual({ ok: true, policy: { kind: CONNECTOR_EGRESS, entries: [] } });
    expect(ok('127.0.0.1, ,').entries).toHaveLength(1);
  });

  it('parses IPs, CIDRs, host:port and owner-scoped entries', () => {
    const policy = ok(
      `127.0.0.1, ::1, 10.0.0.0/8, fc00::/7, api.internal:8443, 10.1.2.3:5432, [::1]:8080, [fd00::5], ${OWNER}/fec-mirror=192.168.0.0/16, API.Corp.:443`,
    );
    expect(policy.entries.map((e) => [e.kind, e.scope])).toEqual([
      ['ip', undefined],
      ['ip', undefined],
      ['cidr', undefined],
      ['cidr', undefined],
      ['host_port', undefined],
      ['host_port', undefined],
      ['host_port', undefined],
      ['ip', undefined],
      ['cidr', { owner: OWNER, id: 'fec-mirror' }],
      ['host_port', undefined],
    ]);
    expect(policy.entries[4]).toMatchObject({ host: 'api.internal', isIp: false, port: 8443 });
    expect(policy.entries[5]).toMatchObject({ host: '10.1.2.3', isIp: true, port: 5432 });
    expect(policy.entries[6]).toMatchObject({ host: '::1', isIp: true, port: 8080 });
    expect(policy.entries[9]).toMatchObject({ host: 'api.corp', port: 443 });
    expect(policy.entries[8]!.source).toBe(`${OWNER}/fec-mirror=192.168.0.0/16`);
  });

  it('accepts service principals as owners and trims around / and =', () => {
    expect(ok('system:operator/shared-db = 10.0.0.5:5432').entries[0]).toMatchObject({
      kind: 'host_port',
      scope: { owner: 'system:operator', id: 'shared-db' },
    });
  });

  it('takes capability ids (dots, capitals, underscores) in the capability list', () => {
    expect(ok(`${OWNER}/Writer_v2.en=10.0.0.7:50070`, CAPABILITY_EGRESS).entries[0]!.scope).toEqual({ owner: OWNER, id: 'Writer_v2.en' });
    // …which are not connector ids.
    expect(parseEgressAllowList(`${OWNER}/Writer_v2.en=10.0.0.7:50070`).ok).toBe(false);
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
    [`${OWNER}/Bad_Id=10.0.0.1`, '"Bad_Id" is not a connector id (kebab-case, e.g. fec-contributions)'],
    ['bad owner/fec=10.0.0.1', '"bad owner" is not a user id'],
    ['/fec=10.0.0.1', '"" is not a user id'],
    [`${OWNER}/=10.0.0.1`, '"" is not a connector id'],
    [`${OWNER}/fec=`, 'nothing to allow after "="'],
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

  it('refuses the old connector-id=… form, which opened to anyone naming a connector that id, and shows the new form', () => {
    const r = parseEgressAllowList('fec-mirror=api.internal:8443');
    expect(r).toEqual({
      ok: false,
      errors: [
        'entry 1 ("fec-mirror=api.internal:8443"): "fec-mirror=…" would open to every user who names a connector "fec-mirror": ' +
          'name the owner too, as <owner-user-id>/fec-mirror=api.internal:8443',
      ],
    });
    expect(() => egressPolicyFrom('writer=10.0.0.7:50070', CAPABILITY_EGRESS)).toThrow(
      'CAPABILITY_EGRESS_ALLOW: entry 1 ("writer=10.0.0.7:50070"): "writer=…" would open to every user who names a capability "writer": name the owner too, as <owner-user-id>/writer=10.0.0.7:50070',
    );
  });

  it('reports every bad entry', () => {
    const r = parseEgressAllowList('a,b/1,10.0.0.1');
    expect(r).toEqual({ ok: false, errors: [expect.stringContaining('entry 1'), expect.stringContaining('entry 2')] });
  });

  it('egressPolicyFrom throws one error naming the variable', () => {
    expect(() => egressPolicyFrom('10.0.0.0/40')).toThrow(/^CONNECTOR_EGRESS_ALLOW: entry 1 \("10\.0\.0\.0\/40"\)/);
    expect(() => egressPolicyFrom('10.0.0.0/40', CAPABILITY_EGRESS)).toThrow(/^CAPABILITY_EGRESS_ALLOW: entry 1/);
    expect(egressPolicyFrom('10.0.0.1').entries).toHaveLength(1);
  });

  it('scopedKeys lists the owner/id pairs entries are scoped to', () => {
    expect(scopedKeys(ok(`127.0.0.1,${OWNER}/a=10.0.0.1,${OWNER}/a=10.0.0.2,other/b=10.0.0.3`))).toEqual(new Set([`${OWNER}/a`, 'other/b']));
  });
});
