/**
 * The destinations of `route_output` (and of a playbook's `output` block):
 * their schema and parser live in @af/plan, so playbook validation refuses
 * exactly what delivery would (every problem naming its field); delivery keys
 * are the router's own.
 */
import type { DestinationType } from '@af/plan';

export {
  DESTINATION_TYPES,
  destinationSchema,
  parseDestinations,
  type Destination,
  type DestinationProblem,
  type DestinationType,
  type ParsedDestination,
} from '@af/plan';

/** The delivery key of destination `index` of a node: `runId:nodeId:<index>-<type>` (stable across attempts). */
export function deliveryKey(runId: string, nodeId: string, index: number, type: DestinationType): string {
  return `${runId}:${nodeId}:${index}-${type}`;
}
