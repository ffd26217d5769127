import { runMain } from '@af/service-kit';
import { bootstrapEntityResolution } from './bootstrap.js';

runMain('entity-resolution', () => bootstrapEntityResolution());
