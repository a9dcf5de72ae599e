/**
 * @eql/cli: the `eql` command (validate, estimate, preview, fmt, convert, and serve, keys and ingest for
 * the host). `main(argv, io)` runs it in-process with the arguments and IO given and resolves with its exit code.
 *
 * @packageDocumentation
 */
export { main } from './main.js';
export type { CliIo } from './io.js';
