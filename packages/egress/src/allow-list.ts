/**
 * The operator's allow-list of non-public destinations: `CONNECTOR_EGRESS_ALLOW`
 * for connectors, `CAPABILITY_EGRESS_ALLOW` for capability agent endpoints.
 * Same syntax for both (`kind` says which, for messages and ids).
 *
 * An entry is an IP (`10.1.2.3`, `::1`), a CIDR range (`10.0.0.0/8`,
 * `fc00::/7`) or `host:port` (`api.internal:8443`, `10.1.2.3:5432`,
 * `[::1]:8080`). Plain entries open to every tenant of the deployment. An
 * entry can instead be scoped to ONE user's connector (or capability):
 * `<owner-user-id>/<id>=entry`. The owner is part of the scope because ids
 * are chosen by users: an entry keyed by the id alone (`id=entry`, the old
 * form) would open to anyone who names their connector that id, so it is
 * refused with the new form to write.
 */
import type { Ip } from './address.js';
import { parseIp } from './address.js';

/** Which allow-list is parsed: named in every error and refusal. */
export interface AllowListKind {
  /** The environment variable, e.g. `CONNECTOR_EGRESS_ALLOW`. */
  readonly variable: string;
  /** What a scoped entry names after its owner (`connector`, `capability`). */
  readonly subject: string;
  /** How that subject's ids are written. */
  readonly subjectId: RegExp;
  /** What the ids look like, for messages. */
  readonly subjectIdHint: string;
  /** What dials through this list, for "…, which connectors may never reach". */
  readonly dialers: string;
}

const KEBAB_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** The planner's capability id syntax (`@af/plan` CAPABILITY_ID). */
const CAPABILITY_ID = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

export const CONNECTOR_EGRESS: AllowListKind = {
  variable: 'CONNECTOR_EGRESS_ALLOW',
  subject: 'connector',
  subjectId: KEBAB_ID,
  subjectIdHint: 'kebab-case, e.g. fec-contributions',
  dialers: 'connectors',
};

export const CAPABILITY_EGRESS: AllowListKind = {
  variable: 'CAPABILITY_EGRESS_ALLOW',
  subject: 'capability',
  subjectId: CAPABILITY_ID,
  subjectIdHint: 'e.g. writer.en',
  dialers: 'capability endpoints',
};

/** Whose connector (capability) a scoped entry applies to. */
export interface EgressScope {
  /** The owner's user id. */
  owner: string;
  /** The connector id (capability id) within the owner's. */
  id: string;
}

/** One allow-list entry; `scope` limits it to one owner's connector (capability). */
export type EgressAllowEntry =
  | { kind: 'ip'; address: string; scope?: EgressScope; source: string }
  | { kind: 'cidr'; range: [Ip, number]; scope?: EgressScope; source: string }
  | { kind: 'host_port'; host: string; isIp: boolean; port: number; scope?: EgressScope; source: string };

export interface EgressPolicy {
  readonly kind: AllowListKind;
  readonly entries: readonly EgressAllowEntry[];
}

export type ParseEgressAllowListResult = { ok: true; policy: EgressPolicy } | { ok: false; errors: string[] };

/** No allow-list: connectors reach public addresses only. */
export const DEFAULT_EGRESS_POLICY: EgressPolicy = { kind: CONNECTOR_EGRESS, entries: [] };

/** User ids are UUIDs; service principals look like `system:operator`. */
const OWNER = /^[A-Za-z0-9][A-Za-z0-9_.:@-]*$/;
const MAX_ID = 200;

export const HOSTNAME =
  /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/**
 * Parses an allow-list: comma-separated entries. Empty items (a trailing
 * comma) are ignored; every bad entry is reported as `entry N ("…"): reason`.
 */
export function parseEgressAllowList(text: string | undefined, kind: AllowListKind = CONNECTOR_EGRESS): ParseEgressAllowListResult {
  const entries: EgressAllowEntry[] = [];
  const errors: string[] = [];
  const items = (text ?? '').split(',');
  items.forEach((raw, index) => {
    const item = raw.trim();
    if (item === '') return;
    const parsed = parseEntry(item, kind);
    if (typeof parsed === 'string') errors.push(`entry ${index + 1} ("${item}"): ${parsed}`);
    else entries.push(parsed);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, policy: { kind, entries } };
}

/** Like `parseEgressAllowList` but throws one Error naming the variable and listing every problem. */
export function egressPolicyFrom(text: string | undefined, kind: AllowListKind = CONNECTOR_EGRESS): EgressPolicy {
  const parsed = parseEgressAllowList(text, kind);
  if (!parsed.ok) throw new Error(`${kind.variable}: ${parsed.errors.join('; ')}`);
  return parsed.policy;
}

/** `owner/id`: the key of a scope (owners never contain `/`). */
export function scopeKey(scope: EgressScope): string {
  return `${scope.owner}/${scope.id}`;
}

/** Every scope some entry of `policy` names, as `scopeKey`s. */
export function scopedKeys(policy: EgressPolicy): Set<string> {
  return new Set(policy.entries.flatMap((e) => (e.scope ? [scopeKey(e.scope)] : [])));
}

function parseScope(left: string, target: string, kind: AllowListKind): EgressScope | string {
  const slash = left.indexOf('/');
  if (slash < 0) {
    // The old form: it opened to every user who names a connector `left`.
    return (
      `"${left}=…" would open to every user who names a ${kind.subject} "${left}": ` +
      `name the owner too, as <owner-user-id>/${left}=${target || '…'}`
    );
  }
  const owner = left.slice(0, slash).trim();
  const id = left.slice(slash + 1).trim();
  if (!OWNER.test(owner) || owner.length > MAX_ID) {
    return `"${owner}" is not a user id (the owner of the ${kind.subject}: letters, digits and _ . : @ -)`;
  }
  if (!kind.subjectId.test(id) || id.length > MAX_ID) return `"${id}" is not a ${kind.subject} id (${kind.subjectIdHint})`;
  return { owner, id };
}

function parseEntry(source: string, kind: AllowListKind): EgressAllowEntry | string {
  let target = source;
  let scope: { scope: EgressScope } | Record<string, never> = {};
  const eq = source.indexOf('=');
  if (eq >= 0) {
    target = source.slice(eq + 1).trim();
    const parsed = parseScope(source.slice(0, eq).trim(), target, kind);
    if (typeof parsed === 'string') return parsed;
    if (target === '') return 'nothing to allow after "="';
    scope = { scope: parsed };
  }

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
  if ((target.match(/:/g) ?? []).length > 1) return 'not a valid IPv6 address; write [address]:port to add a port';

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

/** A port as written in an entry or an endpoint: 1–65535, else the reason. */
export function parsePort(text: string): number | string {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    return `the port must be a whole number from 1 to 65535, got "${text}"`;
  }
  return Number(text);
}

export function stripDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}
