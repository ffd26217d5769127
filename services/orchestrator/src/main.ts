import { runMain } from '@af/service-kit';
import { bootstrapOrchestrator } from './bootstrap.js';

runMain('orchestrator', () => bootstrapOrchestrator());
