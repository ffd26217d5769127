/**
 * Which network destinations a connector may reach (SSRF guard). Connector
 * definitions are written by users, so a `base_url` — or a redirect, or a
 * DNS answer — must not be able to point the service at its own network:
 * loopback, private ranges, link-local, cloud metadata endpoints and the
 * other special-purpose ranges are refused unless an operator allow-lists
 * them with `CONNECTOR_EGRESS_ALLOW`.
 *
 * Pure: classification and the decision only. `infra/guarded-http.ts`
 * resolves names and applies the decision to every address it connects to.
 */
import ipaddr from 'ipaddr.js';
import { ConnectorError } from './connector-error.js';

/** The kind of destination an IP address is. Only `public` is reachable by default. */
export type AddressCategory =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

/**
 * Cloud instance-metadata endpoints (credentials live there). Allowed only by
 * naming the exact address, never by a CIDR range that happens to cover it.
 */
export const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254', // AWS, GCP, Azure, OCI, OpenStack, DigitalOcean IMDS
  '169.254.170.2', // AWS ECS task metadata / credentials
  '169.254.170.23', // AWS EKS pod identity agent
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure WireServer (a public-looking address)
  '192.0.0.192', // Oracle Cloud (classic)
  'fd00:ec2::254', // AWS IMDS over IPv6
  'fd00:ec2::23', // AWS EKS pod identity agent over IPv6
];

/** Categories no allow-list entry can open: they are never a legitimate upstream. */
const NEVER_ALLOWED: ReadonlySet<AddressCategory> = new Set(['unspecified', 'multicast', 'broadcast']);

const CATEGORY_LABELS: Record<AddressCategory, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private network address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  cgnat: 'a carrier-grade NAT (shared) address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved or special-purpose address',
};

export interface AddressClass {
  category: AddressCategory;
  /** Canonical text of the address as given (IPv6 compressed, no zone). */
  address: string;
  /**
   * The IPv4 address actually reached when the IPv6 address embeds one
   * (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated, NAT64 `64:ff9b::/96`).
   */
  embeddedIPv4?: string;
}

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

const METADATA = new Set(METADATA_ADDRESSES.map((a) => ipaddr.parse(a).toString()));

/** Classified addresses by text (`null`: not an IP). Every request classifies the addresses it connects to. */
const CLASSIFIED = new Map<string, Readonly<AddressClass> | null>();
/** Beyond this many distinct addresses the cache starts over. */
const MAX_CLASSIFIED = 4096;

/** Classifies an IP address; `undefined` when `text` is not one. The result is shared: do not change it. */
export function classifyAddress(text: string): Readonly<AddressClass> | undefined {
  let cls = CLASSIFIED.get(text);
  if (cls === undefined) {
    const fresh = classifyUncached(text);
    cls = fresh ? Object.freeze(fresh) : null;
    if (CLASSIFIED.size >= MAX_CLASSIFIED) CLASSIFIED.clear();
    CLASSIFIED.set(text, cls);
  }
  return cls ?? undefined;
}

function classifyUncached(text: string): AddressClass | undefined {
  const ip = parseIp(text);
  if (!ip) return undefined;
  const address = ip.toString();
  if (ip.kind() === 'ipv4') return { category: classifyIPv4(ip as ipaddr.IPv4), address };
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const inner = METADATA.has(embedded.toString()) ? 'metadata' : classifyIPv4(embedded);
    return { category: inner, address, embeddedIPv4: embedded.toString() };
  }
  return { category: METADATA.has(address) ? 'metadata' : classifyIPv6(v6), address };
}

function classifyIPv4(ip: ipaddr.IPv4): AddressCategory {
  if (METADATA.has(ip.toString())) return 'metadata';
  switch (ip.range()) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'linkLocal':
      return 'link_local';
    case 'carrierGradeNat':
      return 'cgnat';
    case 'unspecified':
      return 'unspecified';
    case 'multicast':
      return 'multicast';
    case 'broadcast':
      return 'broadcast';
    default:
      return 'reserved';
  }
}

function classifyIPv6(ip: ipaddr.IPv6): AddressCategory {
  const p = ip.parts;
  // IPv4-compatible ::a.b.c.d (deprecated, RFC 4291 §2.5.5.1): ipaddr.js calls it unicast.
  if (p.slice(0, 6).every((x) => x === 0) && ip.range() === 'unicast') return 'reserved';
  // fec0::/10 site-local was the private range before fc00::/7.
  if ((p[0]! & 0xffc0) === 0xfec0) return 'private';
  switch (ip.range()) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'uniqueLocal':
      return 'private';
    case 'linkLocal':
      return 'link_local';
    case 'unspecified':
      return 'unspecified';
    case 'multicast':
      return 'multicast';
    default:
      return 'reserved';
  }
}

/** The IPv4 address a packet to `ip` ends up at, for the forms that embed one. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = ip.parts;
  const tail = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return tail(); // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return tail(); // ::ffff:0:a.b.c.d (translated)
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return tail(); // 64:ff9b::a.b.c.d (NAT64)
  return undefined;
}

const FOUR_PART_DECIMAL = /^(0|[1-9]\d*)(\.(0|[1-9]\d*)){3}$/;

/** A strictly written IP: IPv4 as four decimal parts, IPv6 with optional brackets and zone. */
function parseIp(text: string): Ip | undefined {
  const t = text.trim().replace(/^\[(.*)\]$/, '$1');
  // The same test ipaddr.js makes, first: its own validation throws (slowly) on every host name.
  if (FOUR_PART_DECIMAL.test(t) && ipaddr.IPv4.isValidFourPartDecimal(t)) return ipaddr.IPv4.parse(t);
  if (t.includes(':') && ipaddr.IPv6.isValid(t)) {
    const v6 = ipaddr.IPv6.parse(t);
    // Zones only matter for link-local, which is refused anyway; compare without them.
    return new ipaddr.IPv6(v6.parts);
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// The operator allow-list
// ---------------------------------------------------------------------------

/** One `CONNECTOR_EGRESS_ALLOW` entry; `connectorId` scopes it to one connector. */
export type EgressAllowEntry =
  | { kind: 'ip'; address: string; connectorId?: string; source: string }
  | { kind: 'cidr'; range: [Ip, number]; connectorId?: string; source: string }
  | { kind: 'host_port'; host: string; isIp: boolean; port: number; connectorId?: string; source: string };

export interface EgressPolicy {
  readonly entries: readonly EgressAllowEntry[];
}

export type ParseEgressAllowListResult = { ok: true; policy: EgressPolicy } | { ok: false; errors: string[] };

/** No allow-list: only public addresses. */
export const DEFAULT_EGRESS_POLICY: EgressPolicy = { entries: [] };

const KEBAB_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const HOSTNAME =
  /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/**
 * Parses `CONNECTOR_EGRESS_ALLOW`: a comma-separated list of entries, each an
 * IP (`10.1.2.3`, `::1`), a CIDR range (`10.0.0.0/8`, `fc00::/7`) or
 * `host:port` (`api.internal:8443`, `10.1.2.3:5432`, `[::1]:8080`),
 * optionally scoped to one connector as `connector-id=entry`. Empty items
 * (a trailing comma) are ignored; every bad entry is reported.
 */
export function parseEgressAllowList(text: string | undefined): ParseEgressAllowListResult {
  const entries: EgressAllowEntry[] = [];
  const errors: string[] = [];
  const items = (text ?? '').split(',');
  items.forEach((raw, index) => {
    const item = raw.trim();
    if (item === '') return;
    const parsed = parseEntry(item);
    if (typeof parsed === 'string') errors.push(`entry ${index + 1} ("${item}"): ${parsed}`);
    else entries.push(parsed);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, policy: { entries } };
}

/** Like `parseEgressAllowList` but throws one Error listing every problem. */
export function egressPolicyFrom(text: string | undefined): EgressPolicy {
  const parsed = parseEgressAllowList(text);
  if (!parsed.ok) throw new Error(`CONNECTOR_EGRESS_ALLOW: ${parsed.errors.join('; ')}`);
  return parsed.policy;
}

function parseEntry(source: string): EgressAllowEntry | string {
  let target = source;
  let connectorId: string | undefined;
  const eq = source.indexOf('=');
  if (eq >= 0) {
    connectorId = source.slice(0, eq).trim();
    target = source.slice(eq + 1).trim();
    if (!KEBAB_ID.test(connectorId) || connectorId.length > 100) {
      return `"${connectorId}" is not a connector id (kebab-case, e.g. fec-contributions)`;
    }
    if (target === '') return 'nothing to allow after "="';
  }
  const scope = connectorId !== undefined ? { connectorId } : {};

  if (target.includes('://')) return 'expected an IP address, a CIDR range or host:port, not a URL';
  if (target.includes('/')) {
    const [addr = '', bits = ''] = target.split('/');
    const ip = parseIp(addr);
    const max = ip?.kind() === 'ipv4' ? 32 : 128;
    if (!ip || addr.startsWith('[')) return 'not a valid CIDR range (e.g. 10.0.0.0/8 or fc00::/7)';
    if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) {
      return `the prefix length must be a whole number from 0 to ${max}`;
    }
    return { kind: 'cidr', range: [ip, Number(bits)], ...scope, source };
  }

  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(target);
  if (bracketed) {
    const ip = parseIp(bracketed[1]!);
    if (!ip || ip.kind() !== 'ipv6') return 'brackets must enclose an IPv6 address, e.g. [::1]:8080';
    if (bracketed[2] === undefined) return { kind: 'ip', address: ip.toString(), ...scope, source };
    const port = parsePort(bracketed[2]);
    if (typeof port === 'string') return port;
    return { kind: 'host_port', host: ip.toString(), isIp: true, port, ...scope, source };
  }

  const ip = parseIp(target);
  if (ip) return { kind: 'ip', address: ip.toString(), ...scope, source };
  if ((target.match(/:/g) ?? []).length > 1)
    return 'not a valid IPv6 address; write [address]:port to add a port';

  const hostPort = /^([^:]+):([^:]*)$/.exec(target);
  if (hostPort) {
    const host = hostPort[1]!.toLowerCase();
    const port = parsePort(hostPort[2]!);
    if (typeof port === 'string') return port;
    const hostIp = parseIp(host);
    if (hostIp) return { kind: 'host_port', host: hostIp.toString(), isIp: true, port, ...scope, source };
    if (/^[\d.]+$/.test(host)) return 'IPv4 addresses must be written as four decimal parts, e.g. 10.0.0.1';
    if (!HOSTNAME.test(host)) return `"${hostPort[1]}" is not a valid hostname`;
    return { kind: 'host_port', host: stripDot(host), isIp: false, port, ...scope, source };
  }
  if (/^[\d.]+$/.test(target)) return 'IPv4 addresses must be written as four decimal parts, e.g. 10.0.0.1';
  if (HOSTNAME.test(target.toLowerCase())) {
    return `a hostname needs a port, e.g. "${target}:443" (or allow its address or CIDR range)`;
  }
  return 'expected an IP address, a CIDR range or host:port';
}

function parsePort(text: string): number | string {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    return `the port must be a whole number from 1 to 65535, got "${text}"`;
  }
  return Number(text);
}

function stripDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

// ---------------------------------------------------------------------------
// The decision
// ---------------------------------------------------------------------------

/** One connection about to be made. */
export interface EgressTarget {
  /** The URL's hostname (or IP literal), as the connector named it. */
  host: string;
  port: number;
  /** The address that will be connected to (the literal, or one DNS answer). */
  address: string;
  /** The connector making the call; selects scoped allow-list entries. */
  connectorId?: string;
}

export type EgressDecision =
  | { allowed: true; category: AddressCategory; allowedBy?: string }
  | { allowed: false; category: AddressCategory | 'invalid'; reason: string; allowable: boolean };

/** Allows public addresses, and the others an applicable allow-list entry names. */
export function decideEgress(policy: EgressPolicy, target: EgressTarget): EgressDecision {
  const host = normalizeHost(target.host);
  const cls = classifyAddress(target.address);
  if (!cls) {
    return {
      allowed: false,
      category: 'invalid',
      reason: `"${target.address}" is not an IP address`,
      allowable: false,
    };
  }
  if (cls.category === 'public') return { allowed: true, category: 'public' };
  const shown = cls.embeddedIPv4 ? `${cls.address} (IPv4 ${cls.embeddedIPv4})` : cls.address;
  const subject = host === cls.address ? shown : `${target.host} resolves to ${shown}`;
  const joiner = host === cls.address ? ' is ' : ', ';
  const label = CATEGORY_LABELS[cls.category];
  if (NEVER_ALLOWED.has(cls.category)) {
    return {
      allowed: false,
      category: cls.category,
      reason: `${subject}${joiner}${label}, which connectors may never reach`,
      allowable: false,
    };
  }
  const addresses = cls.embeddedIPv4 ? [cls.address, cls.embeddedIPv4] : [cls.address];
  const entry = policy.entries.find(
    (e) =>
      (e.connectorId === undefined || e.connectorId === target.connectorId) &&
      entryMatches(e, host, target.port, addresses, cls.category === 'metadata'),
  );
  if (entry) return { allowed: true, category: cls.category, allowedBy: entry.source };
  return { allowed: false, category: cls.category, reason: `${subject}${joiner}${label}`, allowable: true };
}

function entryMatches(
  entry: EgressAllowEntry,
  host: string,
  port: number,
  addresses: readonly string[],
  metadata: boolean,
): boolean {
  switch (entry.kind) {
    case 'ip':
      return addresses.includes(entry.address);
    case 'cidr':
      // A metadata endpoint has to be named exactly; a range never opens it by accident.
      if (metadata) return false;
      return addresses.some((a) => {
        const ip = parseIp(a)!;
        return ip.kind() === entry.range[0].kind() && ip.match(entry.range);
      });
    case 'host_port':
      if (entry.port !== port) return false;
      return entry.isIp ? addresses.includes(entry.host) : entry.host === host;
  }
}

function normalizeHost(host: string): string {
  const h = stripDot(host.trim().toLowerCase()).replace(/^\[(.*)\]$/, '$1');
  const ip = parseIp(h);
  return ip ? ip.toString() : h;
}

/** Only http and https leave the service; `undefined` when `protocol` (e.g. `https:`) is one of them. */
export function schemeRefusal(protocol: string): string | undefined {
  if (protocol === 'http:' || protocol === 'https:') return undefined;
  return `the scheme "${protocol.replace(/:$/, '')}" is not allowed (only http and https)`;
}

/**
 * The error for a refused destination. `host` is the URL's host (with port),
 * never the whole URL: its query string may carry an api key.
 */
export function egressRefused(host: string, reason: string, allowable: boolean): ConnectorError {
  const hint = allowable ? '; an operator can allow it with CONNECTOR_EGRESS_ALLOW' : '';
  return new ConnectorError('FAILED_PRECONDITION', `egress to ${host} refused: ${reason}${hint}`, {
    retryable: false,
  });
}
