export { bootstrapApproval } from './bootstrap.js';
