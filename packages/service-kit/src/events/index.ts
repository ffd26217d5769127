export * from './bus.js';
export * from './subjects.js';
export { JetStreamBus } from './jetstream-bus.js';
export { AckedPublisher } from './acked-publisher.js';
export { MemoryBus } from './memory-bus.js';
export * from './frame-sequencer.js';
export * from './run-frames.js';
import type { Logger } from '../logger.js';
import type { EventBus } from './bus.js';
import { JetStreamBus } from './jetstream-bus.js';
import { MemoryBus } from './memory-bus.js';
import type { Subjects } from './subjects.js';

const memoryBuses = new Map<string, MemoryBus>();

/** `nats://…` → JetStream; `memory://name` → the process-wide in-memory bus of that name (embedded mode). */
export async function connectBus(url: string, subjects: Subjects, log: Logger): Promise<EventBus> {
  if (url.startsWith('memory:')) {
    let bus = memoryBuses.get(url);
    if (!bus) memoryBuses.set(url, (bus = new MemoryBus(subjects)));
    return bus;
  }
  return JetStreamBus.connect(url, subjects, log);
}
