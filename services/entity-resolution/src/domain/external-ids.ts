/**
 * External identifiers in canonical form, so that `04-3568784`, `043568784`
 * and ` 04 3568784 ` are one EIN. A value that cannot be an id of its kind
 * is an error naming the kind, never a silent drop.
 */
import { ID_KINDS, type ExternalIds, type IdKind } from './record.js';

export type IdParse = { ok: true; value: string } | { ok: false; reason: string };

/** IRS Employer Identification Number: nine digits, canonical `NN-NNNNNNN`. */
function ein(raw: string): IdParse {
  const digits = raw.replace(/[\s-]/g, '');
  if (!/^\d{9}$/.test(digits)) return { ok: false, reason: 'an EIN has nine digits (NN-NNNNNNN)' };
  return { ok: true, value: `${digits.slice(0, 2)}-${digits.slice(2)}` };
}

/** FEC committee / candidate id: a letter C, H, S or P and eight letters or digits, upper case. */
function fec(raw: string): IdParse {
  const v = raw.replace(/\s/g, '').toUpperCase();
  if (!/^[CHSP][0-9A-Z]{8}$/.test(v))
    return { ok: false, reason: 'an FEC id is C, H, S or P followed by eight letters or digits' };
  return { ok: true, value: v };
}

/** SEC Central Index Key: up to ten digits, canonical zero-padded to ten. */
function cik(raw: string): IdParse {
  const v = raw.replace(/\s/g, '').replace(/^CIK/i, '');
  if (!/^\d{1,10}$/.test(v) || /^0+$/.test(v)) return { ok: false, reason: 'a CIK is one to ten digits' };
  return { ok: true, value: v.padStart(10, '0') };
}

const PARSERS: Record<IdKind, (raw: string) => IdParse> = { ein, fec_id: fec, cik };

export function canonicalId(kind: IdKind, raw: string): IdParse {
  return PARSERS[kind](raw);
}

export interface IdProblem {
  kind: string;
  reason: string;
}

/** Canonical ids of a record plus one problem per malformed or unknown id. */
export function canonicalIds(raw: Record<string, unknown> | undefined): {
  ids: ExternalIds;
  problems: IdProblem[];
} {
  const ids: ExternalIds = {};
  const problems: IdProblem[] = [];
  for (const [kind, value] of Object.entries(raw ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    if (!(ID_KINDS as readonly string[]).includes(kind)) {
      problems.push({ kind, reason: `unknown id kind (known: ${ID_KINDS.join(', ')})` });
      continue;
    }
    const parsed = canonicalId(kind as IdKind, String(value));
    if (parsed.ok) ids[kind as IdKind] = parsed.value;
    else problems.push({ kind, reason: parsed.reason });
  }
  return { ids, problems };
}
