#!/usr/bin/env node
// The EQL language server for any LSP client: `eql-language-server --stdio` (or `--node-ipc`).
import { runServer } from '../dist/node/main.js';

runServer(process.argv.slice(2));
