import { runMain } from '@af/service-kit';
import { bootstrapConnectorRuntime } from './bootstrap.js';

runMain('connector-runtime', () => bootstrapConnectorRuntime());
