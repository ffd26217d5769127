/**
 * Capability registration (flex spec §5.6.1, §5.6.2, §15.10): the payload an
 * agent (AI or human) sends to advertise what it consumes and produces, as
 * facet names. Parsed field by field; facets are checked against the catalog
 * (unknown names and direction mismatches are rejected with the field path).
 */
import { z } from 'zod';
import type { PlanIssue } from '../issues/plan-issue.js';
import { facetAllows, FacetNameSchema, unknownFacetIssue, type FacetCatalog } from './facet.js';
import { directionIssue } from './facet-contract-compiler.js';
import { issuesOf } from './zod-keys.js';

/** Capability ids and instance ids: `writer.en`, `strategist.SocialPosting`, `HumanAgent.clarifyBrief`. */
export const CAPABILITY_ID = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;
// Dots separate words (they become NATS subject tokens), so no empty word.
const id = (what: string) =>
  z
    .string()
    .max(200, `${what} must be at most 200 characters`)
    .regex(CAPABILITY_ID, `${what} must start with a letter or _, contain only letters, digits, _ - and dots between words`);
const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
const strings = (max: number) => z.array(z.string().trim().min(1).max(200)).max(max);

const uniqueFacets = (min: number) =>
  z
    .array(FacetNameSchema)
    .min(min, min > 0 ? 'must name at least one facet' : undefined)
    .max(100)
    .superRefine((names, ctx) => {
      names.forEach((n, i) => {
        if (names.indexOf(n) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `facet '${n}' is listed twice` });
      });
    });

export const AGENT_TYPES = ['ai', 'human'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

export const CapabilityRegistrationSchema = z.strictObject({
  capabilityId: id('capabilityId'),
  /** One registration per running instance; several instances share a capability (default `default`). */
  instanceId: id('instanceId').default('default'),
  /** What this instance serves (`en`, `writer.fr`, a tenant …); the planner and dispatcher may filter by scope. */
  scopes: z.array(z.string().trim().min(1).max(100)).max(50).default([]),
  agentType: z.enum(AGENT_TYPES),
  version: text(100),
  displayName: text(200),
  summary: text(2000),
  inputTraits: z
    .strictObject({
      languages: strings(50).optional(),
      formats: strings(50).optional(),
      strengths: strings(50).optional(),
      limitations: strings(50).optional(),
    })
    .optional(),
  inputContract: uniqueFacets(0),
  outputContract: uniqueFacets(1),
  cost: z
    .strictObject({
      tier: z.enum(['economy', 'standard', 'premium']).optional(),
      estimatedTokens: z.number().int().min(0).max(10_000_000).optional(),
      estimatedCostUsd: z.number().min(0).max(1_000_000).optional(),
    })
    .optional(),
  preferredModels: strings(20).optional(),
  /** Without a heartbeat the registration never goes stale (catalog entries, long-lived human capabilities). */
  heartbeat: z
    .strictObject({
      intervalSeconds: z.number().int().min(1).max(86_400),
      /** Stale after this long without a heartbeat (default 3 × interval). */
      timeoutSeconds: z.number().int().min(1).max(259_200).optional(),
    })
    .refine((h) => h.timeoutSeconds === undefined || h.timeoutSeconds >= h.intervalSeconds, { message: 'timeoutSeconds must be at least intervalSeconds', path: ['timeoutSeconds'] })
    .optional(),
  /** gRPC address of the agent service (`host:port`) the orchestrator dispatches to (CapabilityAgent.Invoke). */
  endpoint: z
    .string()
    .regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^(dns|ipv4|ipv6|unix):.+$/, 'must be host:port (or a gRPC target: dns:, ipv4:, ipv6:)')
    .max(300)
    .optional(),
  /** Human capabilities (§15.10): UI copy and assignment defaults. */
  instructionTemplates: z.record(z.string(), z.string().max(8000)).optional(),
  assignmentDefaults: z.record(z.string(), z.unknown()).optional(),
  metadata: z
    .looseObject({
      catalogTags: z.array(z.string().trim().min(1).max(100)).max(50).optional(),
      collection: z.string().trim().min(1).max(200).optional(),
    })
    .optional(),
});

export type CapabilityRegistration = z.output<typeof CapabilityRegistrationSchema>;
export type CapabilityRegistrationInput = z.input<typeof CapabilityRegistrationSchema>;

/** Fields of older payloads, refused with what to do instead (§5.6.2 "Legacy JSON Schema contracts are deprecated"). */
const LEGACY_FIELDS: Record<string, string> = {
  defaultContract: 'legacy defaultContract fallbacks were removed: declare facet names in outputContract',
  inputSchema: 'JSON Schema contracts were replaced by facets: list facet names in inputContract',
  outputSchema: 'JSON Schema contracts were replaced by facets: list facet names in outputContract',
  name: 'use displayName',
  description: 'use summary',
  kind: 'use agentType (ai | human)',
};

export type RegistrationParse = { ok: true; registration: CapabilityRegistration } | { ok: false; issues: PlanIssue[] };

/**
 * Parses a registration payload and checks its facets against the catalog:
 * unknown facets and direction mismatches (`inputContract[1]: facet
 * 'positioning' is output-only …`) are rejected. Never throws for bad input.
 */
export function parseCapabilityRegistration(raw: unknown, catalog: FacetCatalog, base = ''): RegistrationParse {
  const at = (f: string) => (base ? `${base}.${f}` : f);
  const issues: PlanIssue[] = [];
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const r = raw as Record<string, unknown>;
    for (const [key, hint] of Object.entries(LEGACY_FIELDS)) {
      if (key in r) issues.push({ code: 'legacy_field', field: at(key), message: `${at(key)}: ${hint}` });
    }
    if (typeof r.agentType === 'string' && r.agentType !== r.agentType.toLowerCase() && (AGENT_TYPES as readonly string[]).includes(r.agentType.toLowerCase())) {
      issues.push({ code: 'invalid_field', field: at('agentType'), message: `${at('agentType')}: must be lowercase '${r.agentType.toLowerCase()}'`, suggestedFix: r.agentType.toLowerCase() });
    }
    if (issues.length) return { ok: false, issues };
  }
  const parsed = CapabilityRegistrationSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, issues: issuesOf(CapabilityRegistrationSchema, parsed.error, base) };
  const reg = parsed.data;
  const check = (names: string[], use: 'input' | 'output', field: string) =>
    names.forEach((n, i) => {
      const f = catalog.get(n);
      if (!f) issues.push(unknownFacetIssue(catalog, n, at(`${field}[${i}]`)));
      else if (!facetAllows(f, use)) issues.push(directionIssue(f, use, at(`${field}[${i}]`)));
    });
  check(reg.inputContract, 'input', 'inputContract');
  check(reg.outputContract, 'output', 'outputContract');
  return issues.length ? { ok: false, issues } : { ok: true, registration: reg };
}

/** Seconds without a heartbeat after which an instance is stale; undefined = never stale. */
export function heartbeatTimeoutSeconds(reg: Pick<CapabilityRegistration, 'heartbeat'>): number | undefined {
  if (!reg.heartbeat) return undefined;
  return reg.heartbeat.timeoutSeconds ?? reg.heartbeat.intervalSeconds * 3;
}
