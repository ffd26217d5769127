export { bootstrapOutputRouter } from './bootstrap.js';
