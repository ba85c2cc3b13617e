/**
 * The state's change journal and the views kept current from it (MirrorView), without a database.
 */
import t from 'tap';
import { CollectionMirror, MirrorView } from '../../src/db/state.js';
import type { StoredDocument } from '../../src/db/outbox/index.js';

interface Doc extends StoredDocument {
  _id: string;
  value: number;
}

function mirror(): CollectionMirror<Doc> {
  return new CollectionMirror<Doc>('docs', () => undefined);
}

t.test('changedSince lists each changed id once, oldest first, from any version the journal still holds', async (t) => {
  const m = mirror();
  m.written('a', { _id: 'a', _rev: 1, value: 1 });
  const v1 = m.version;
  m.written('b', { _id: 'b', _rev: 1, value: 1 });
  m.written('a', { _id: 'a', _rev: 2, value: 2 });
  m.written('c', null);
  t.same(m.changedSince(v1), ['b', 'a', 'c']);
  t.same(m.changedSince(m.version), []);
  t.equal(m.changedSince(m.version + 1), undefined, 'a version from the future is not known');
});

t.test('the journal is trimmed: a version it no longer reaches is answered undefined', async (t) => {
  const m = mirror();
  const start = m.version;
  for (let i = 0; i < 3000; i++) m.written(`d${i % 10}`, { _id: `d${i % 10}`, _rev: i + 1, value: i });
  t.equal(m.changedSince(start), undefined);
  t.same(m.changedSince(m.version - 2), ['d8', 'd9']);
});

t.test('MirrorView builds once, then applies only the changes; undefined from update builds whole', async (t) => {
  const m = mirror();
  m.written('a', { _id: 'a', _rev: 1, value: 1 });
  m.written('b', { _id: 'b', _rev: 1, value: 2 });
  let builds = 0;
  const updates: Array<Array<[unknown, number | undefined]>> = [];
  let refuse = false;
  const view = new MirrorView<Doc, Map<unknown, number>>(m,
    (docs) => {
      builds++;
      return new Map([...docs].map((d) => [d._id, d.value]));
    },
    (value, changed) => {
      updates.push(changed.map(([id, doc]) => [id, doc?.value]));
      if (refuse) return undefined;
      const next = new Map(value);
      for (const [id, doc] of changed) {
        if (doc) next.set(id, doc.value);
        else next.delete(id);
      }
      return next;
    });
  t.same([...view.get()], [['a', 1], ['b', 2]]);
  const first = view.get();
  t.equal(view.get(), first, 'unchanged: the same value');
  m.written('a', { _id: 'a', _rev: 2, value: 5 });
  m.written('b', null);
  t.same([...view.get()], [['a', 5]]);
  t.same(updates, [[['a', 5], ['b', undefined]]]);
  t.same([...first], [['a', 1], ['b', 2]], 'the value handed out before is left as it was');
  refuse = true;
  m.written('c', { _id: 'c', _rev: 1, value: 7 });
  t.same([...view.get()], [['a', 5], ['c', 7]]);
  t.equal(builds, 2);
});
