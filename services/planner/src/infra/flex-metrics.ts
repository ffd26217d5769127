/**
 * The flex metrics of the seed (§6 "Telemetry & Metrics Parity", §5.7 prompt
 * telemetry) on the service's Prometheus registry, with Prometheus names
 * (dots become underscores): `flex.planner.requests` →
 * `flex_planner_requests_total`, `flex.planner.prompt.*` →
 * `flex_planner_prompt_*` histograms, plus the registry's changes.
 *
 * prom-client is a dependency of @af/service-kit, not of the planner, so the
 * metric classes are taken from the kit's own metrics (same prom-client).
 */
import type { Metrics } from '@af/service-kit';

/** The parts of prom-client's Counter / Histogram used here, with free-form labels. */
export interface CounterT {
  inc(labels: Record<string, string>, value?: number): void;
}
export interface HistogramT {
  observe(labels: Record<string, string>, value: number): void;
}
type CounterCtor = new (c: { name: string; help: string; labelNames?: string[]; registers: unknown[] }) => CounterT;
type HistogramCtor = new (c: { name: string; help: string; labelNames?: string[]; buckets: number[]; registers: unknown[] }) => HistogramT;

export class FlexMetrics {
  readonly requests: CounterT;
  readonly rejections: CounterT;
  readonly generated: CounterT;
  readonly updated: CounterT;
  readonly registry: CounterT;
  readonly promptChars: HistogramT;
  readonly promptRows: HistogramT;
  readonly planningMs: HistogramT;

  constructor(metrics: Metrics) {
    const Counter = metrics.events.constructor as unknown as CounterCtor;
    const Histogram = metrics.rpcDuration.constructor as unknown as HistogramCtor;
    const registers = [metrics.registry];
    const counter = (name: string, help: string, labelNames: string[] = []) => new Counter({ name, help, labelNames, registers });
    this.requests = counter('flex_planner_requests_total', 'flex.planner.requests: PlanTask calls', ['runtime']);
    this.rejections = counter('flex_planner_rejections_total', 'flex.planner.rejections: drafts rejected by validation', ['runtime']);
    this.generated = counter('flex_planner_generated_total', 'flex.planner.generated: plans accepted', ['runtime']);
    this.updated = counter('flex_planner_updated_total', 'flex.planner.updated: replans accepted (new plan versions)', ['runtime']);
    this.registry = counter('flex_capability_events_total', 'capability registry changes', ['event']);
    this.promptChars = new Histogram({ name: 'flex_planner_prompt_chars', help: 'flex.planner.prompt.*: prompt size in characters', labelNames: ['part'], buckets: [1000, 4000, 16000, 64000, 256000], registers });
    this.promptRows = new Histogram({ name: 'flex_planner_prompt_rows', help: 'flex.planner.prompt.*: table rows rendered', labelNames: ['table'], buckets: [5, 10, 25, 50, 100], registers });
    this.planningMs = new Histogram({ name: 'flex_planner_duration_ms', help: 'PlanTask duration in milliseconds', labelNames: ['runtime'], buckets: [1, 5, 10, 50, 100, 500, 2000, 10000, 60000], registers });
  }
}
