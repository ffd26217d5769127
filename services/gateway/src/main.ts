import { runMain } from '@af/service-kit';
import { bootstrapGateway } from './bootstrap.js';

runMain('gateway', () => bootstrapGateway());
