import t from 'tap';
import { buildIndex, pageOf, parseOperatorValue, search, type IndexInput } from '../../../src/features/feature-search/query.js';
import { FEATURE_TYPES } from '../../../src/features/feature-types/read-model.js';
import type { FlagData } from '../../../src/features/flags/read-model.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 29);

function flag(name: string, type: string, ageDays: number, stale = false): FlagData {
  const createdAt = new Date(NOW - ageDays * DAY);
  return {
    _id: name, name, project: 'default', description: null, type, impressionData: false, stale, archived: false, archivedAt: null, createdAt,
    createdBy: { id: -42, name: 'Unleash Admin Token User' }, tags: [], lifecycle: { stage: 'initial', enteredStageAt: createdAt },
    dependencies: [], environments: {}, strategyIds: [],
  };
}

const input = (flags: FlagData[]): IndexInput => ({
  flags, projectEnvs: new Map([['default', [{ name: 'development', type: 'development', sortOrder: 2 }]]]), tagColors: new Map(),
  segmentNames: new Map(), changeRequests: new Map(), creators: new Map(), unknownCreator: { id: null, name: 'unknown', imageUrl: '' }, now: NOW,
  lifetimes: new Map(FEATURE_TYPES.map((type) => [type.id, type.lifetimeDays])),
});

t.test('operator values', async (t) => {
  t.same(parseOperatorValue('IS_ANY_OF:a, b ,c'), { operator: 'IS_ANY_OF', values: ['a', 'b', 'c'] });
  t.equal(parseOperatorValue('IS:'), null, 'nothing after the operator: no filter');
  t.equal(parseOperatorValue('NOPE:x'), null);
  t.same(pageOf({}), { offset: 0, limit: 50 });
  t.same(pageOf({ limit: '100', offset: '3' }), { offset: 3, limit: 100 });
  t.same(pageOf({ limit: '101', offset: '-2' }), { offset: 0, limit: 50 });
});

t.test('potentially stale: older than the type\'s lifetime (release 40 days, operational 7, kill-switch never)', async (t) => {
  const index = buildIndex(input([
    flag('young-release', 'release', 10), flag('old-release', 'release', 41), flag('old-operational', 'operational', 8),
    flag('old-kill-switch', 'kill-switch', 400), flag('old-stale', 'release', 50, true),
  ]));
  const names = (state: string) => search(index, { state }, { lastSeen: new Map(), favorites: new Map() }).items.map((i) => i.entry.flag.name);
  // Oldest first: old-kill-switch, old-stale, old-release, young-release (10 days), old-operational (8).
  t.same(names('IS:potentially-stale'), ['old-release', 'old-operational'], 'a stale flag is not potentially stale');
  t.same(names('IS_NOT:potentially-stale'), ['old-kill-switch', 'old-stale', 'young-release']);
  t.same(names('IS_ANY_OF:stale,potentially-stale'), ['old-stale', 'old-release', 'old-operational']);
  t.same(names('IS_NONE_OF:stale,potentially-stale'), ['old-kill-switch', 'young-release']);
  t.same(names('IS_ANY_OF:active,potentially-stale'), ['old-kill-switch', 'old-release', 'young-release', 'old-operational'], 'Unleash: active');
  t.same(names('IS_ANY_OF:active,stale,potentially-stale').length, 5);
  t.same(names('IS_NONE_OF:active,stale,potentially-stale'), []);
});

t.test('favourites: the filter, favourites first in the sort\'s order and paged, and a mark on an older flag of the same name', async (t) => {
  const flags = [flag('a', 'release', 4), flag('b', 'release', 3), flag('c', 'release', 2), flag('d', 'release', 1)];
  const index = buildIndex(input(flags));
  const favorites = new Map([['b', flags[1]!.createdAt.getTime()], ['d', flags[3]!.createdAt.getTime()], ['c', 0]]);
  const names = (params: Record<string, string>) => search(index, params, { lastSeen: new Map(), favorites }).items.map((i) => i.entry.flag.name);
  t.same(names({ favorite: 'IS:true' }), ['b', 'd'], 'c was marked when an earlier flag c existed');
  t.same(names({ favorite: 'IS:false' }), ['a', 'c']);
  t.same(names({ favorite: 'IS_ANY_OF:true,false' }), ['a', 'b', 'c', 'd']);
  t.same(names({ favoritesFirst: 'true', sortBy: 'name', sortOrder: 'desc' }), ['d', 'b', 'c', 'a']);
  t.same(names({ favoritesFirst: 'yes', sortBy: 'name', sortOrder: 'desc' }), ['d', 'c', 'b', 'a'], 'only `true` asks for it');
  t.same(names({ favoritesFirst: 'true', sortBy: 'name', limit: '2', offset: '1' }), ['d', 'a']);
  t.same(names({ favoritesFirst: 'true', sortBy: 'lastSeenAt', limit: '2' }), ['b', 'd'], 'also under a sort that builds every flag');
  t.equal(search(index, { favoritesFirst: 'true' }, { lastSeen: new Map(), favorites }).total, 4);
});
