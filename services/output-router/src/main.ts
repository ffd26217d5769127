import { runMain } from '@af/service-kit';
import { bootstrapOutputRouter } from './bootstrap.js';

runMain('output-router', () => bootstrapOutputRouter());
