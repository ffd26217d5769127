/** The EventBus contract against the real NATS JetStream (the in-process bus runs the same suite in memory-bus.spec.ts). */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { TEST_NATS_URL } from '@af/testing';
import { busContract } from '../bus-contract.js';
import { createLogger, JetStreamBus, Subjects } from '../../src/index.js';

busContract('JetStreamBus', async (prefix) => {
  const subjects = new Subjects(prefix);
  const bus = await JetStreamBus.connect(TEST_NATS_URL, subjects, createLogger('test', 'silent'));
  return {
    bus,
    subjects,
    dispose: async () => {
      await bus.close();
      const nc = await connect({ servers: TEST_NATS_URL });
      const jsm = await jetstreamManager(nc);
      for (const spec of subjects.streams()) await jsm.streams.delete(spec.name).catch(() => undefined);
      await nc.close();
    },
  };
});
