/**
 * Records the operations of the Unleash reference's OpenAPI document into a fixture, so that a test
 * compares Vane's document with it without the reference server:
 * `node dist/tools/openapi/record.js --peer URL test/fixtures/openapi/unleash-operations.json`.
 */
import { writeFileSync } from 'node:fs';
import { commandLine, usageError } from '../cli.js';
import { operationsOf, type OpenApiDocument } from './operations.js';

const USAGE = `
Usage: node dist/tools/openapi/record.js [--peer URL] FILE

Writes the operations of the reference's GET /docs/openapi.json (method and path, parameters,
whether a body is taken, success statuses) to FILE as JSON.

  --peer URL   the Unleash reference (default http://127.0.0.1:4242)
`;

const { values, positionals } = commandLine(USAGE, {
  options: { peer: { type: 'string', default: 'http://127.0.0.1:4242' } },
  allowPositionals: true,
});
const [file] = positionals;
if (!file || positionals.length > 1) usageError(USAGE, 'one FILE is needed');
const res = await fetch(`${values.peer}/docs/openapi.json`);
if (!res.ok) usageError(USAGE, `${values.peer}/docs/openapi.json answered ${res.status}`);
const document = await res.json() as OpenApiDocument & { info: { version: string } };
const operations = operationsOf(document);
writeFileSync(file, `${JSON.stringify({ source: `Unleash ${document.info.version} GET /docs/openapi.json`, operations }, null, 1)}\n`);
process.stdout.write(`${operations.length} operations of Unleash ${document.info.version} written to ${file}\n`);
