export { bootstrapEntityResolution } from './bootstrap.js';
