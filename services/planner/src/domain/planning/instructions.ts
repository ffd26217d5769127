/**
 * The merged system instruction of a node (flex spec §5.7 step 4): the
 * objective, what to use from each input facet and what each output facet
 * means (their `semantics`), the node's own instruction, the caller's special
 * instructions and, for a branch, which variant this is.
 */
import type { FacetCatalog, TaskEnvelope } from '@af/plan';
import { literalText } from './node-ids.js';

export interface InstructionParts {
  inputFacets: string[];
  outputFacets: string[];
  instruction?: string;
  variant?: { index: number; count: number };
}

function semanticsOf(catalog: FacetCatalog, name: string): string {
  const f = catalog.get(name);
  if (!f) return name;
  const text = (f.semantics || f.description).replace(/\s*\n\s*/g, ' ');
  return `${name} (${f.title}): ${text}`;
}

export function mergeInstruction(catalog: FacetCatalog, envelope: TaskEnvelope, parts: InstructionParts): string {
  const lines: string[] = [`Objective: ${envelope.objective}`];
  if (parts.instruction) lines.push(parts.instruction);
  if (parts.inputFacets.length) lines.push('Use these inputs:', ...parts.inputFacets.map((f) => `- ${semanticsOf(catalog, f)}`));
  if (parts.outputFacets.length) lines.push('Produce these outputs (a JSON object keyed by facet name):', ...parts.outputFacets.map((f) => `- ${semanticsOf(catalog, f)}`));
  if (envelope.specialInstructions.length) lines.push('Special instructions:', ...envelope.specialInstructions.map((s) => `- ${s}`));
  if (parts.variant && parts.variant.count > 1) {
    const hint = envelope.specialInstructions[parts.variant.index - 1];
    lines.push(`This is variant ${parts.variant.index} of ${parts.variant.count}; make it distinct from the others${hint && envelope.specialInstructions.length === parts.variant.count ? ` (${hint})` : ''}.`);
  }
  return literalText(lines.join('\n'));
}
