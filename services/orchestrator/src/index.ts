export { bootstrapOrchestrator } from './bootstrap.js';
