/**
 * Compares a running Vane's OpenAPI document with the recorded Unleash 8.2 operations and prints
 * the README's compatibility report: `node dist/tools/openapi/compare.js --vane URL`.
 */
import { readFileSync } from 'node:fs';
import { commandLine, usageError } from '../cli.js';
import { compare, operationsOf, report, type OpenApiDocument, type Operation } from './operations.js';

const USAGE = `
Usage: node dist/tools/openapi/compare.js [--vane URL] [--reference FILE]

Prints which of the reference's operations Vane's GET /docs/openapi.json serves, which it does not,
and how the served ones differ in the document (query parameters, body, success statuses).

  --vane URL         a running Vane (default http://127.0.0.1:4242)
  --reference FILE   the recorded operations (default test/fixtures/openapi/unleash-operations.json)
`;

const { values } = commandLine(USAGE, {
  options: {
    vane: { type: 'string', default: 'http://127.0.0.1:4242' },
    reference: { type: 'string', default: 'test/fixtures/openapi/unleash-operations.json' },
  },
});
const reference = (JSON.parse(readFileSync(values.reference, 'utf8')) as { operations: Operation[] }).operations;
const res = await fetch(`${values.vane}/docs/openapi.json`);
if (!res.ok) usageError(USAGE, `${values.vane}/docs/openapi.json answered ${res.status}`);
process.stdout.write(report(compare(reference, operationsOf(await res.json() as OpenApiDocument)), reference.length));
