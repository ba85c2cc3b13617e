/** The form of a fixture of recorded admin calls (record-admin.ts writes them, tests replay them). */

export interface RecordedStep {
  method: string;
  path: string;
  body?: unknown;
  capture?: string;
  /** Where in the answer the captured id is (dot-separated keys and indexes; default `id`). */
  capturePath?: string;
  only?: string;
  /**
   * Who sends it: the admin token (default), or `person`, the first admin user through a personal
   * access token (the import refuses admin tokens).
   */
  as?: 'person';
  /**
   * Keeps the answer as it came, unnormalised, under this name: a later body's `"$kept:NAME"` is it
   * (a replay sends the reference's kept answer, so a test imports the reference's own export).
   */
  keep?: string;
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

/** `"$kept:NAME"` anywhere in `value` replaced by the answer kept under NAME. */
export function withKept(value: unknown, kept: ReadonlyMap<string, unknown>): unknown {
  if (typeof value === 'string' && value.startsWith('$kept:')) {
    const answer = kept.get(value.slice(6));
    if (answer === undefined) throw new Error(`nothing kept under ${value.slice(6)}`);
    return answer;
  }
  if (Array.isArray(value)) return value.map((item) => withKept(item, kept));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withKept(inner, kept)]));
  }
  return value;
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
