/**
 * Replaces `owner[field]` (a collection handle) with a proxy that tells `onCall` of each call of
 * the methods `watched` accepts, then passes the call on. A replaced handle, not a method set on
 * it: the guard's handle is itself a proxy, and a method set through it lands on the collection
 * behind it and is guarded twice (a write waiting for a second write slot on FerretDB's one).
 */
export function watchCalls(owner: object, field: string, watched: (method: string) => boolean, onCall: (method: string) => void): void {
  const fields = owner as Record<string, object>;
  fields[field] = new Proxy(fields[field]!, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !watched(prop) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        onCall(prop);
        return (value as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
}
