export { bootstrapPlanner } from './bootstrap.js';
