#!/usr/bin/env node
/** The `af` binary. */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processIo } from './io.js';
import { createCli } from './program.js';
import { readCliVersion } from './version.js';

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());

const cli = createCli({ io: processIo, stop: stop.signal, version: readCliVersion(dirname(fileURLToPath(import.meta.url))) });
cli.run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // Open handles (gRPC channels) must not keep a finished command alive.
  setTimeout(() => process.exit(code), 100).unref();
});
