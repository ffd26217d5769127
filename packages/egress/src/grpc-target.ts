/**
 * Capability agent endpoints: the gRPC target a user registers and the
 * orchestrator dials. Only TCP targets naming one host and port are
 * accepted — `host:port`, `[v6]:port`, `dns:host:port`, `dns:///host:port`,
 * `ipv4:a.b.c.d:port`, `ipv6:[v6]:port`. Unix sockets (`unix:`,
 * `unix-abstract:`), `vsock:`, address lists and a DNS server named in the
 * target are refused: the first reach local services no address policy can
 * see, the others would let the address dialled differ from the one checked.
 */
import { decideEgress, egressRefusalMessage } from './decision.js';
import { parseIp } from './address.js';
import { HOSTNAME, parsePort, stripDot, type EgressPolicy, type EgressScope } from './allow-list.js';

/** One TCP destination of an endpoint. */
export interface GrpcTarget {
  /** Lower-case hostname or canonical IP (no brackets). */
  host: string;
  port: number;
  /** True when `host` is an IP: nothing to resolve. */
  literal: boolean;
}

export type ParseGrpcTargetResult = { ok: true; target: GrpcTarget } | { ok: false; reason: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):(.*)$/i;

/** Parses an endpoint as registered; a refusal says why in words a user can act on. */
export function parseGrpcTarget(endpoint: string): ParseGrpcTargetResult {
  const text = endpoint.trim();
  if (text === '') return { ok: false, reason: 'must not be empty' };
  const scheme = SCHEME.exec(text);
  // `host:port` also matches the scheme pattern (`api.internal:8443`): only a known word is a scheme.
  const name = scheme?.[1]!.toLowerCase();
  if (scheme && name && !/^\d+$/.test(scheme[2]!) && !text.startsWith('[')) {
    const rest = scheme[2]!;
    switch (name) {
      case 'dns': {
        if (rest.startsWith('//')) {
          const m = /^\/\/([^/]*)\/(.*)$/.exec(rest);
          if (!m) return { ok: false, reason: 'write dns:///host:port' };
          if (m[1] !== '') return { ok: false, reason: 'a DNS server in the target (dns://server/…) is not supported; write dns:///host:port' };
          return hostPort(m[2]!);
        }
        return hostPort(rest);
      }
      case 'ipv4':
      case 'ipv6': {
        if (rest.includes(',')) return { ok: false, reason: 'name one address, not a list' };
        const parsed = hostPort(rest);
        if (parsed.ok && (!parsed.target.literal || (name === 'ipv4') !== !parsed.target.host.includes(':'))) {
          return { ok: false, reason: `${name}: must be followed by an ${name === 'ipv4' ? 'IPv4 address' : 'IPv6 address in brackets'} and a port` };
        }
        return parsed;
      }
      case 'unix':
      case 'unix-abstract':
      case 'vsock':
        return { ok: false, reason: `"${name}:" targets are not allowed: an agent endpoint must be a TCP host:port` };
      default:
        return { ok: false, reason: `the scheme "${name}" is not allowed: an agent endpoint must be host:port (or dns:, ipv4:, ipv6:)` };
    }
  }
  return hostPort(text);
}

function hostPort(text: string): ParseGrpcTargetResult {
  const bracketed = /^\[([^\]]+)\]:([^:]*)$/.exec(text);
  if (bracketed) {
    const ip = parseIp(bracketed[1]!);
    if (!ip || ip.kind() !== 'ipv6') return { ok: false, reason: 'brackets must enclose an IPv6 address, e.g. [::1]:50070' };
    const port = parsePort(bracketed[2]!);
    if (typeof port === 'string') return { ok: false, reason: port };
    return { ok: true, target: { host: ip.toString(), port, literal: true } };
  }
  const m = /^([^:[\]]+):([^:]*)$/.exec(text);
  if (!m) return { ok: false, reason: 'must be host:port (an IPv6 address in brackets: [::1]:50070)' };
  const port = parsePort(m[2]!);
  if (typeof port === 'string') return { ok: false, reason: port };
  const host = m[1]!.toLowerCase();
  const ip = parseIp(host);
  if (ip) return { ok: true, target: { host: ip.toString(), port, literal: true } };
  if (/^[\d.]+$/.test(host)) return { ok: false, reason: 'IPv4 addresses must be written as four decimal parts, e.g. 10.0.0.1' };
  if (!HOSTNAME.test(host)) return { ok: false, reason: `"${m[1]}" is not a valid hostname` };
  return { ok: true, target: { host: stripDot(host), port, literal: false } };
}

/**
 * Why an endpoint cannot be registered, or undefined: a target that does not
 * parse, or an IP literal the policy refuses for this owner's capability.
 * Hostnames pass: what they resolve to can change, so the orchestrator
 * checks their addresses every time it dials.
 */
export function endpointRefusal(policy: EgressPolicy, endpoint: string, scope: EgressScope): string | undefined {
  const parsed = parseGrpcTarget(endpoint);
  if (!parsed.ok) return parsed.reason;
  const { host, port, literal } = parsed.target;
  if (!literal) return undefined;
  const decision = decideEgress(policy, { host, port, address: host, scope });
  if (decision.allowed) return undefined;
  return egressRefusalMessage(policy, formatHostPort(host, port), decision.reason, decision.allowable);
}

/** `host:port`, brackets around an IPv6 address. */
export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
