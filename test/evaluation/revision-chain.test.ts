/** A full copy plus each revision's changes: what threads are sent and how they catch up. */
import t from 'tap';
import { catchUp, RevisionChain, type Caught, type ShippedRevision, type Step } from '../../src/evaluation/index.js';
import { CHUNK_STEPS, MAX_STEPS, MIN_CHANGED_ITEMS } from '../../src/evaluation/revision-chain.js';

/** A state of named numbers; a change sets some and removes some. */
type State = ReadonlyMap<string, number>;
interface Changes { set: Array<[string, number]>; removed: string[] }

const json = (state: State) => JSON.stringify([...state]);
const whole = (text: string): State => new Map(JSON.parse(text) as Array<[string, number]>);
const changesJson = (changes: Changes) => JSON.stringify(changes);

/** Counts what a thread did, so a test sees which path it took. */
class Thread {
  held: Caught<State> | undefined;
  wholes = 0;
  applied = 0;
  take(shipped: ShippedRevision): State {
    this.held = catchUp<State, Changes>(this.held, shipped, (text) => {
      this.wholes++;
      return whole(text);
    }, (value, steps: ReadonlyArray<Step<Changes>>) => {
      this.applied += steps.length;
      const next = new Map(value);
      for (const { changes } of steps) {
        for (const name of changes.removed) next.delete(name);
        for (const [name, n] of changes.set) next.set(name, n);
      }
      return next;
    });
    return this.held.value;
  }
}

/** The main thread's side: a state changed revision by revision, each recorded in the chain. */
class Main {
  readonly chain = new RevisionChain<Changes>();
  state: State;
  revision = 1;
  constructor(size = 100) {
    this.state = new Map(Array.from({ length: size }, (_, i) => [`k${i}`, i]));
    this.chain.record(1, undefined, undefined, 0, this.state.size);
  }
  change(changes: Changes): void {
    const next = new Map(this.state);
    for (const name of changes.removed) next.delete(name);
    for (const [name, n] of changes.set) next.set(name, n);
    this.state = next;
    this.revision++;
    this.chain.record(this.revision, this.revision - 1, changes, changes.set.length + changes.removed.length, next.size);
  }
  ship(): ShippedRevision {
    const state = this.state;
    return this.chain.ship(this.revision, () => json(state), changesJson);
  }
}

t.test('threads at any revision of the chain catch up with only the steps after theirs', async (t) => {
  const main = new Main();
  const following = new Thread();
  const late = new Thread();
  t.strictSame([...following.take(main.ship())], [...main.state]);
  t.equal(following.wholes, 1, 'a thread holding nothing takes the full copy');
  late.take(main.ship());
  for (let i = 0; i < 10; i++) {
    main.change({ set: [[`k${i}`, 1000 + i], [`new${i}`, i]], removed: [`k${50 + i}`] });
    t.strictSame([...following.take(main.ship())], [...main.state], `revision ${main.revision}`);
  }
  t.equal(following.wholes, 1, 'no second full copy while following');
  t.equal(following.applied, 10, 'one step per revision');
  const shipped = main.ship();
  t.equal(shipped.base, 1, 'the base stays the first revision');
  t.strictSame([...late.take(shipped)], [...main.state], 'a thread that missed nine revisions');
  t.equal(late.wholes, 1);
  t.equal(late.applied, 10, 'the ten steps after its revision, not a full copy');
  const fresh = new Thread();
  t.strictSame([...fresh.take(shipped)], [...main.state], 'a thread holding nothing: the base and every step');
  t.equal(fresh.wholes, 1);
  t.equal(fresh.applied, 10);
  t.equal(following.take(shipped), following.held!.value, 'the same revision again costs nothing');
});

t.test('a revision removed and set again, in steps applied together, ends as the last step says', async (t) => {
  const main = new Main();
  const thread = new Thread();
  thread.take(main.ship());
  main.change({ set: [], removed: ['k1'] });
  main.change({ set: [['k1', 7]], removed: [] });
  main.change({ set: [['k2', 8]], removed: ['k2'] });
  t.strictSame([...thread.take(main.ship())], [...main.state]);
  t.equal(thread.held!.value.get('k1'), 7);
  t.equal(thread.held!.value.get('k2'), 8, 'within a step removals come before sets');
});

t.test('a thread ahead of the task (an older revision asked after a newer one) takes the base and the steps to it', async (t) => {
  const main = new Main();
  const thread = new Thread();
  main.change({ set: [['a', 1]], removed: [] });
  const older = main.ship();
  const olderState = main.state;
  main.change({ set: [['b', 2]], removed: [] });
  thread.take(main.ship());
  t.strictSame([...thread.take(older)], [...olderState]);
  t.equal(thread.wholes, 2, 'the full copy taken again');
  t.strictSame([...thread.take(main.ship())], [...main.state], 'and forward again by one step');
  t.equal(thread.wholes, 2);
});

t.test('the chain starts again past its bounds', async (t) => {
  // Enough items that the changed-items bound (a quarter of them) is not what ends the chain.
  const main = new Main(8 * MAX_STEPS);
  const thread = new Thread();
  thread.take(main.ship());
  for (let i = 0; i < MAX_STEPS + 5; i++) {
    main.change({ set: [['k0', i]], removed: [] });
    thread.take(main.ship());
  }
  const shipped = main.ship();
  t.ok(shipped.base > 1, `a new base after ${MAX_STEPS} steps`);
  t.ok(shipped.revision - shipped.base <= MAX_STEPS);
  t.strictSame([...thread.take(shipped)], [...main.state]);
  t.equal(thread.wholes, 2, 'one full copy per chain');
  const stale = new Thread();
  stale.held = { revision: 2, value: new Map() };
  t.strictSame([...stale.take(shipped)], [...main.state], 'a thread holding a revision before the base takes the full copy');
  t.equal(stale.wholes, 1);

  const touched = new Main();
  touched.ship();
  for (let i = 0; i < MIN_CHANGED_ITEMS; i++) touched.change({ set: [[`k${i % 10}`, i]], removed: [] });
  t.equal(touched.ship().base, 1, `${MIN_CHANGED_ITEMS} one-item steps keep the base`);
  touched.change({ set: [['k0', -1]], removed: [] });
  t.equal(touched.ship().base, touched.revision, 'one more starts a new one');

  const big = new Main();
  big.change({ set: Array.from({ length: MIN_CHANGED_ITEMS + 1 }, (_, i) => [`k${i}`, -i]), removed: [] });
  const heavy = big.ship();
  t.equal(heavy.base, heavy.revision, 'changes touching more than the bound ship a full copy');
  t.equal(heavy.steps, undefined);
});

t.test('steps are sealed in chunks written once; a thread reads only the chunks after its revision', async (t) => {
  const main = new Main(10_000);
  const thread = new Thread();
  thread.take(main.ship());
  for (let i = 0; i < 2 * CHUNK_STEPS + 10; i++) main.change({ set: [[`k${i}`, -i]], removed: [] });
  const first = main.ship();
  t.equal(first.steps?.length, 3, 'two sealed chunks and the open one');
  t.strictSame(first.stepsTo, [1 + CHUNK_STEPS, 1 + 2 * CHUNK_STEPS, main.revision]);
  const behind = new Thread();
  behind.held = { revision: main.revision - 5, value: new Map(main.state) };
  main.change({ set: [['x', 1]], removed: [] });
  const next = main.ship();
  t.equal(next.steps?.[0], first.steps?.[0], 'a sealed chunk is the same buffer in every later revision');
  t.equal(next.steps?.[1], first.steps?.[1]);
  t.not(next.steps?.[2], first.steps?.[2], 'the open chunk is written again');
  // A thread at the open chunk's revisions: given the sealed chunks as garbage, it must not read them.
  const unreadable = { ...next, steps: [new SharedArrayBuffer(1), new SharedArrayBuffer(1), next.steps![2]!] };
  behind.take(unreadable);
  t.equal(behind.held.value.get('x'), 1);
  t.equal(behind.applied, 6, 'the five steps it missed and the new one');
  t.strictSame([...thread.take(next)], [...main.state], 'a thread at the base applies every chunk');
  t.equal(thread.applied, 2 * CHUNK_STEPS + 11);
});

t.test('revisions no task needed cost no JSON; the chain ships from the first one shipped', async (t) => {
  const main = new Main();
  let fulls = 0;
  const ship = () => main.chain.ship(main.revision, () => {
    fulls++;
    return json(main.state);
  }, changesJson);
  for (let i = 0; i < 5; i++) main.change({ set: [[`x${i}`, i]], removed: [] });
  const first = ship();
  t.equal(fulls, 1);
  t.equal(first.base, first.revision, 'nothing was shipped before: the base is the revision shipped');
  const thread = new Thread();
  t.strictSame([...thread.take(first)], [...main.state]);
  main.change({ set: [['y', 1]], removed: [] });
  main.change({ set: [['z', 1]], removed: [] });
  const next = ship();
  t.equal(fulls, 1, 'then steps only');
  t.equal(next.base, first.revision);
  t.strictSame([...thread.take(next)], [...main.state]);
  t.equal(ship(), next, 'shipped once per revision');
  const old = main.chain.ship(main.revision - 1, () => '[]', changesJson);
  t.equal(old.base, old.revision, 'a revision other than the last is shipped whole');
  t.equal(main.chain.ship(main.revision, () => '[]', changesJson), next, 'leaving the chain as it was');
});
