/**
 * Worker thread of `ParallelResolver`: resolves the records of one entity
 * type (a `Partition`) as the main thread sends them in batches, reports how
 * many are done after each batch, and sends the partition's result at the end.
 * An exception ends the thread; the main thread rejects with its message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ErRecord } from './record.js';
import { Partition, type PartitionResult } from './resolve-partition.js';
import type { ResolverOptions } from './resolver.js';

export type ToWorker =
  | { op: 'prime'; records: ErRecord[] }
  | { op: 'add'; records: ErRecord[] }
  | { op: 'end' };

export type FromWorker =
  /** `done`: records resolved; `handled`: records taken off the queue (counted or resolved). */
  | { op: 'progress'; done: number; handled: number }
  | { op: 'done'; result: PartitionResult };

export interface WorkerInput {
  type: string;
  resolver: ResolverOptions;
}

const port = parentPort;
if (port) {
  const input = workerData as WorkerInput;
  const partition = new Partition(input.type, input.resolver);
  let handled = 0;
  port.on('message', (msg: ToWorker) => {
    if (msg.op === 'prime' || msg.op === 'add') {
      // Each record let go once used: a batch's records then die young instead of being promoted.
      const records = msg.records as Array<ErRecord | undefined>;
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!;
        records[i] = undefined;
        if (msg.op === 'prime') partition.prime(r);
        else partition.add(r);
      }
      handled += msg.records.length;
      port.postMessage({ op: 'progress', done: partition.size, handled } satisfies FromWorker);
    } else {
      const result = partition.finish();
      port.postMessage({ op: 'done', result } satisfies FromWorker, [
        result.roots.buffer as ArrayBuffer,
        result.decisions.buffer as ArrayBuffer,
        result.latencyMs.buffer as ArrayBuffer,
      ]);
      port.close();
    }
  });
}
