/**
 * The operations of an OpenAPI document, reduced to what a client of them relies on: method and
 * path, the path and query parameters, whether a body is taken, and the success statuses. Vane's
 * document (`GET /docs/openapi.json`) is compared with Unleash 8.2's, recorded in
 * test/fixtures/openapi/unleash-operations.json by tools/openapi/record.ts.
 */

export interface Operation {
  /** `METHOD /path/{param}` as the document writes it. */
  key: string;
  tags: string[];
  pathParameters: string[];
  queryParameters: string[];
  requestBody: boolean;
  /** The 2xx statuses the document gives. */
  success: string[];
}

interface OpenApiOperation {
  tags?: string[];
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: unknown;
  responses?: Record<string, unknown>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Path parameters named apart, so `/a/{projectId}` and `/a/{id}` are the same route. */
export function routeOf(key: string): string {
  return key.replace(/\{[^}]+\}/g, '{}');
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!METHODS.has(method)) continue;
      const parameters = operation.parameters ?? [];
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        tags: operation.tags ?? [],
        pathParameters: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParameters: parameters.filter((p) => p.in === 'query').map((p) => p.name).sort(),
        requestBody: operation.requestBody !== undefined,
        success: Object.keys(operation.responses ?? {}).filter((status) => /^2\d\d$/.test(status)).sort(),
      });
    }
  }
  return operations.sort((a, b) => a.key.localeCompare(b.key));
}

export interface Comparison {
  served: Operation[];
  missing: Operation[];
  /** One line per difference of a served operation: `KEY: what differs`. */
  differences: string[];
}

/** What of `reference` Vane's `vane` operations serve, and how each served one differs. */
export function compare(reference: readonly Operation[], vane: readonly Operation[]): Comparison {
  const byRoute = new Map(vane.map((operation) => [routeOf(operation.key), operation]));
  const served: Operation[] = [];
  const missing: Operation[] = [];
  const differences: string[] = [];
  for (const expected of reference) {
    const actual = byRoute.get(routeOf(expected.key));
    if (!actual) {
      missing.push(expected);
      continue;
    }
    served.push(expected);
    const absent = expected.queryParameters.filter((name) => !actual.queryParameters.includes(name));
    if (absent.length) differences.push(`${expected.key}: query parameters not taken: ${absent.join(', ')}`);
    if (expected.requestBody !== actual.requestBody) differences.push(`${expected.key}: request body ${actual.requestBody ? 'taken' : 'not taken'}`);
    if (expected.success.join() !== actual.success.join()) {
      differences.push(`${expected.key}: success ${actual.success.join(', ')} where the reference documents ${expected.success.join(', ')}`);
    }
  }
  return { served, missing, differences };
}

/** The comparison as the README's compatibility section prints it. */
export function report(comparison: Comparison, total: number): string {
  const lines = [`Vane serves ${comparison.served.length} of the ${total} operations in Unleash 8.2's OpenAPI document.`];
  if (comparison.missing.length) {
    lines.push('', 'Not served yet:', ...comparison.missing.map((operation) => `- \`${operation.key}\``));
  }
  if (comparison.differences.length) {
    lines.push('', 'Served with a difference in the document:', ...comparison.differences.map((line) => `- ${line}`));
  }
  return `${lines.join('\n')}\n`;
}
