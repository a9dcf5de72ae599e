export { main } from './main.js';
export type { CliIo } from './io.js';
