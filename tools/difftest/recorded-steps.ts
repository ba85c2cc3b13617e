/** The form of a fixture of recorded admin calls (record-admin.ts writes them, tests replay them). */

export interface RecordedStep {
  method: string;
  path: string;
  body?: unknown;
  capture?: string;
  /** Where in the answer the captured id is (dot-separated keys and indexes; default `id`). */
  capturePath?: string;
  only?: string;
  /** Wait this long after the call (the reference moves lifecycle stages asynchronously). */
  settleMs?: number;
  status?: number;
  response?: unknown;
  events?: unknown[];
}

export interface RecordedSteps {
  source: string;
  about: string;
  steps: RecordedStep[];
}

/** The answer's JSON (or its text), `only` applied. */
export function recordedBody(text: string, only: string | undefined): unknown {
  let body: unknown = text;
  try {
    body = text === '' ? '' : JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return only !== undefined && Array.isArray(body) ? body.filter((name) => typeof name === 'string' && name.startsWith(only)) : body;
}

/** Each captured id, wherever it appears as a whole string (an event's `strategyIds`), as `<ref:NAME>`. */
export function withRefs(value: unknown, ids: ReadonlyMap<string, unknown>): unknown {
  const names = new Map([...ids].filter(([, id]) => typeof id === 'string').map(([name, id]) => [id as string, name]));
  const walk = (inner: unknown): unknown => {
    if (typeof inner === 'string') return names.has(inner) ? `<ref:${names.get(inner)}>` : inner;
    if (Array.isArray(inner)) return inner.map(walk);
    if (inner !== null && typeof inner === 'object') return Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, walk(v)]));
    return inner;
  };
  return walk(value);
}

/** The id a step captures from its answer: `capturePath` (default `id`) followed key by key. */
export function capturedId(body: unknown, step: Pick<RecordedStep, 'capturePath'>): unknown {
  let value: unknown = body;
  for (const key of (step.capturePath ?? 'id').split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
