import { createServer, type Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Prometheus registry and its /metrics endpoint for one service. */
export class Metrics {
  readonly registry = new Registry();
  readonly rpcDuration: Histogram<'method' | 'code'>;
  readonly events: Counter<'type'>;
  private server?: Server;

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    this.rpcDuration = new Histogram({
      name: 'af_rpc_duration_seconds',
      help: 'gRPC handler duration',
      labelNames: ['method', 'code'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [this.registry],
    });
    this.events = new Counter({
      name: 'af_events_total',
      help: 'Domain events written to the outbox',
      labelNames: ['type'],
      registers: [this.registry],
    });
  }

  /** A histogram in this service's registry (a service's own metrics, e.g. `flex_node_duration_ms`). */
  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames: [...labelNames], buckets, registers: [this.registry] });
  }

  /** A counter in this service's registry. */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] });
  }

  async listen(host: string, port: number): Promise<number> {
    this.server = createServer((req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.registry
        .metrics()
        .then((body) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(body))
        .catch(() => res.writeHead(500).end());
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, resolve);
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
