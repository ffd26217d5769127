/**
 * What kind of destination an IP address is. Anything the platform dials on
 * a user's say-so (a connector's `base_url`, a capability's `endpoint`) must
 * not be able to point it at its own network: loopback, private ranges,
 * link-local, cloud metadata endpoints and the other special-purpose ranges
 * are told apart here so the policy (`decision.ts`) can refuse them.
 *
 * Pure: no DNS, no sockets.
 */
import ipaddr from 'ipaddr.js';

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

/** Categories no allow-list entry can open: they are never a legitimate destination. */
export const NEVER_ALLOWED: ReadonlySet<AddressCategory> = new Set(['unspecified', 'multicast', 'broadcast']);

export const CATEGORY_LABELS: Record<AddressCategory, string> = {
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

export type Ip = ipaddr.IPv4 | ipaddr.IPv6;

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
export function parseIp(text: string): Ip | undefined {
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

