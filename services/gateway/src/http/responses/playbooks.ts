/** Answers of the playbook and action-registry routes (/api/agent-factory/playbooks, /actions). */
import { z } from 'zod';
import { component, JsonObject, timestamp } from './common.js';
import { Run } from './runs.js';

export const Playbook = component(
  'Playbook',
  z.strictObject({
    id: z.string(),
    name: z.string(),
    version: z.string().meta({ description: 'The version string written in the YAML' }),
    revision: z.number().int().meta({ description: 'The stored version number (1, 2, …)' }),
    yaml: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  { description: 'A stored playbook version', examples: [{ id: 'org-lookup', name: 'Org lookup', version: '1.0', revision: 2, yaml: 'id: org-lookup\n…', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z' }] },
);

const position = {
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  suggestedFix: z.string().optional().meta({ description: 'The corrected value of the field' }),
};

/** The shape of a 400's violations, so a client handles both alike. */
export const ValidationIssue = component(
  'ValidationIssue',
  z.strictObject({ field: z.string(), reason: z.string(), code: z.string(), step: z.string().optional(), ...position }),
  { description: 'A playbook problem: field, reason, code, and where known step, line, column and suggestedFix' },
);

const StepIssue = z.strictObject({ field: z.string(), code: z.string(), message: z.string(), ...position });

export const PlaybookValidation = component(
  'PlaybookValidation',
  z.strictObject({
    valid: z.boolean(),
    errors: z.array(ValidationIssue),
    warnings: z.array(ValidationIssue),
    results: z.array(z.strictObject({ step: z.string(), valid: z.boolean(), errors: z.array(StepIssue), warnings: z.array(StepIssue) })),
  }),
  { description: 'Playbook validation: every issue with field, step, line, column and suggestedFix where known' },
);

export const ActionContract = component(
  'ActionContract',
  z.looseObject({
    name: z.string(),
    description: z.string(),
    category: z.string(),
    step_type: z.string(),
    inputs: z.unknown().optional(),
    params: z.unknown().optional(),
    outputs: z.unknown().optional(),
    available: z.boolean().meta({ description: 'Whether this deployment can run it' }),
    served_by: z.string().optional(),
    owner: z.string().optional(),
  }),
  { description: 'An action\'s I/O contract (inputs, params, outputs) and whether it runs here' },
);

export const PlaybookAnswer = z.strictObject({ playbook: Playbook });
export const PlaybookUpdate = z.strictObject({ playbook: Playbook, changed: z.boolean().meta({ description: 'false when the YAML was unchanged (nothing stored)' }) });
export const PlaybookList = z.strictObject({ playbooks: z.array(Playbook) });
export const PlaybookVersions = z.strictObject({ versions: z.array(Playbook) });
export const PlaybookTest = z.strictObject({ run: Run, dry_run: z.strictObject({ allow_side_effects: z.boolean() }), revision: z.number().int() });
export const PlaybookGraph = z.strictObject({ graph: JsonObject.meta({ description: 'steps, edges (dependencies, fallbacks, routes) and levels' }) });
export const ActionList = z.strictObject({ actions: z.array(ActionContract) });
export const ActionAnswer = z.strictObject({ action: ActionContract });
