/// <reference lib="webworker" />
// The EQL language server in a web worker: the same services the editor extension runs
// (@eql/language-server), over LSP messages posted between the page and the worker. No rule of the
// language exists twice.
import { createEqlServices, startServer } from '@eql/language-server';
import { BrowserMessageReader, BrowserMessageWriter, createConnection } from 'vscode-languageserver/browser';

declare const self: DedicatedWorkerGlobalScope;

const connection = createConnection(new BrowserMessageReader(self), new BrowserMessageWriter(self));
startServer(connection, createEqlServices());
