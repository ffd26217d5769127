import { z } from 'zod';

/** `{monitor_config, …}`: the rest of the body is a schedule definition without `spec` (the orchestrator parses it, naming each field). */
export const MonitorBodySchema = z.object({ monitor_config: z.record(z.string(), z.unknown()) }).catchall(z.unknown());
