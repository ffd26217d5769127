import { runMain } from '@af/service-kit';
import { bootstrapApproval } from './bootstrap.js';

runMain('approval', () => bootstrapApproval());
