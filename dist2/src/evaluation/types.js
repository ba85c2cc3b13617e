/**
 * Data shapes of the evaluation engine.
 *
 * The *Config types are the stored configuration exactly as the admin API keeps it (plain JSON).
 * The Playground* types are the result objects of docs/rules.md §3.8–§3.12; their key order is Unleash's and
 * the fast serializer (serialize.ts) reproduces it byte for byte.
 */
export {};
//# sourceMappingURL=types.js.map