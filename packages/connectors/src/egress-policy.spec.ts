// Address classification, allow-list parsing and the decision are tested in @af/egress (packages/egress).
import { ConnectorError } from './connector-error.js';
import { decideEgress, egressPolicyFrom, egressRefused, schemeRefusal } from './egress-policy.js';

describe('the connector allow-list', () => {
  it('is CONNECTOR_EGRESS_ALLOW: errors name it and the owner-scoped form', () => {
    expect(() => egressPolicyFrom('fec-mirror=10.0.0.0/8')).toThrow(
      /^CONNECTOR_EGRESS_ALLOW: entry 1 \("fec-mirror=10\.0\.0\.0\/8"\): .*<owner-user-id>\/fec-mirror=10\.0\.0\.0\/8$/,
    );
    const policy = egressPolicyFrom('alice/fec-mirror=10.0.0.0/8');
    expect(decideEgress(policy, { host: '10.0.0.1', port: 80, address: '10.0.0.1', scope: { owner: 'alice', id: 'fec-mirror' } }).allowed).toBe(true);
    expect(decideEgress(policy, { host: '10.0.0.1', port: 80, address: '10.0.0.1', scope: { owner: 'bob', id: 'fec-mirror' } }).allowed).toBe(false);
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
