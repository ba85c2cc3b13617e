/**
 * Postgres JSONB key order (keys by length, then bytewise), applied recursively to objects. Unleash
 * stores strategy parameters, constraints, variants and every event's `pre_data` as JSONB, so that
 * is the order they come back in.
 */
export function jsonbOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => jsonbOrder(v)) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const keys = Object.keys(value).sort((a, b) => {
    const la = Buffer.byteLength(a);
    const lb = Buffer.byteLength(b);
    if (la !== lb) return la - lb;
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  });
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = jsonbOrder(v);
  }
  return out as T;
}
