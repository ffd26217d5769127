/**
 * The egress decision for one connection about to be made: public addresses
 * are allowed, unspecified/multicast/broadcast never, everything else only
 * when an applicable allow-list entry names it. Callers resolve names
 * themselves and ask about EVERY address a name resolves to, at connect time.
 */
import { CATEGORY_LABELS, classifyAddress, NEVER_ALLOWED, parseIp, type AddressCategory } from './address.js';
import { stripDot, type EgressAllowEntry, type EgressPolicy, type EgressScope } from './allow-list.js';

/** One connection about to be made. */
export interface EgressTarget {
  /** The hostname (or IP literal) as the connector or capability named it. */
  host: string;
  port: number;
  /** The address that will be connected to (the literal, or one DNS answer). */
  address: string;
  /**
   * Who is dialling: the owner's user id and the connector (capability) id.
   * Selects the entries scoped to exactly that owner and id; without it only
   * plain entries apply.
   */
  scope?: EgressScope;
}

export type EgressDecision =
  | { allowed: true; category: AddressCategory; allowedBy?: string }
  | { allowed: false; category: AddressCategory | 'invalid'; reason: string; allowable: boolean };

/** Allows public addresses, and the others an applicable allow-list entry names. */
export function decideEgress(policy: EgressPolicy, target: EgressTarget): EgressDecision {
  const host = normalizeHost(target.host);
  const cls = classifyAddress(target.address);
  if (!cls) {
    return { allowed: false, category: 'invalid', reason: `"${target.address}" is not an IP address`, allowable: false };
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
      reason: `${subject}${joiner}${label}, which ${policy.kind.dialers} may never reach`,
      allowable: false,
    };
  }
  const addresses = cls.embeddedIPv4 ? [cls.address, cls.embeddedIPv4] : [cls.address];
  const scope = target.scope;
  const entry = policy.entries.find(
    (e) =>
      (e.scope === undefined || (scope !== undefined && e.scope.owner === scope.owner && e.scope.id === scope.id)) &&
      entryMatches(e, host, target.port, addresses, cls.category === 'metadata'),
  );
  if (entry) return { allowed: true, category: cls.category, allowedBy: entry.source };
  return { allowed: false, category: cls.category, reason: `${subject}${joiner}${label}`, allowable: true };
}

/**
 * The text of a refusal: `egress to <host> refused: <reason>`, plus which
 * variable could allow it when an entry can. `host` is a host (with port),
 * never a URL: a query string may carry an api key.
 */
export function egressRefusalMessage(policy: EgressPolicy, host: string, reason: string, allowable: boolean): string {
  const hint = allowable ? `; an operator can allow it with ${policy.kind.variable}` : '';
  return `egress to ${host} refused: ${reason}${hint}`;
}

function entryMatches(entry: EgressAllowEntry, host: string, port: number, addresses: readonly string[], metadata: boolean): boolean {
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
