import { runMain } from '@af/service-kit';
import { bootstrapPlanner } from './bootstrap.js';

runMain('planner', () => bootstrapPlanner());
