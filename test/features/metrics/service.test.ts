import t from 'tap';
import { Binary } from 'mongodb';
import { buildTestApp } from '../../helpers/app.js';
import { MetricsService } from '../../../src/features/metrics/service.js';
import { MetricsStore } from '../../../src/features/metrics/store.js';

const HOUR = 3_600_000;

/** Instances as processes are: each its own service over the one database, each knowing only what it polls. */
t.test('metrics of several instances on one database: sheets and heads', async (t) => {
  const app = await buildTestApp(t);
  const store = new MetricsStore(app.database.outbox);
  const [a, b] = [new MetricsService(store), new MetricsService(store)];
  const thisHour = Math.floor(Date.now() / HOUR) * HOUR;
  const fiveHoursAgo = new Date(thisHour - 5 * HOUR);
  const total = async (service: MetricsService, flag: string, hour: number) =>
    (await service.history(flag)).filter((d) => d.hour.getTime() === hour).reduce((n, d) => n + d.yes + d.no, 0);

  await t.test('one document per hour written, whatever the number of flags', async (t) => {
    const toggles = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`many-${i}`, { yes: 1, no: 1 }]));
    a.record('development', 'svc', new Date(thisHour), toggles);
    a.record('production', 'svc', new Date(thisHour), toggles);
    await a.flush();
    t.equal(await store.sheets.countDocuments({ instance: a.instance }), 2, 'the hour\'s sheet and the last-seen sheet');
    t.equal(await store.heads.countDocuments({ _id: a.instance }), 1);
    await b.refresh();
    t.equal(await total(b, 'many-499', thisHour), 4, 'the other instance reads every flag of it');
    t.equal((await b.lastSeen('many-0')).size, 2, 'and the last-seen times');
  });

  await t.test('a poll reads again only the sheets written since', async (t) => {
    a.record('development', 'svc', new Date(thisHour), { 'many-0': { yes: 10 } });
    await a.flush();
    await b.refresh();
    t.equal(await total(b, 'many-0', thisHour), 14, 'absolute totals: the new version replaces the old');
    t.equal(await total(b, 'many-1', thisHour), 4, 'the rest of the hour unchanged');
    await store.sheets.updateOne({ _id: `${a.instance}\0${thisHour}` }, { $set: { body: new Binary(Buffer.from('not read again')) } });
    await b.refresh(); // the head lists the version b has read: the sheet is not fetched (it would fail to inflate)
    t.equal(await total(b, 'many-0', thisHour), 14);
    a.record('development', 'svc', new Date(thisHour), { 'many-0': { yes: 1 } });
    await a.flush(); // a's own sheet again, whole
    await b.refresh();
    t.equal(await total(b, 'many-0', thisHour), 15);
  });

  await t.test('a late report into an hour past its writing keeps the rest of that hour', async (t) => {
    b.record('development', 'old-app', fiveHoursAgo, { late: { yes: 1 }, kept: { yes: 2 } });
    await b.flush();
    await b.flush(); // clean and past the hours reported into: compacted in the history
    b.record('development', 'old-app', fiveHoursAgo, { late: { yes: 3 } });
    await b.flush();
    await a.refresh();
    t.equal(await total(a, 'late', fiveHoursAgo.getTime()), 4);
    t.equal(await total(a, 'kept', fiveHoursAgo.getTime()), 2, 'the hour\'s other flag still in its sheet');
  });

  await t.test('an instance started later reads every instance\'s history; a failed flush is written by the next', async (t) => {
    const c = new MetricsService(store);
    await c.refresh();
    t.equal(await total(c, 'many-0', thisHour), 15);
    t.equal(await total(c, 'late', fiveHoursAgo.getTime()), 4);
    t.equal(await total(c, 'kept', fiveHoursAgo.getTime()), 2);

    const failing = new MetricsStore(app.database.outbox);
    const d = new MetricsService(failing);
    const writeSheets = failing.writeSheets.bind(failing);
    failing.writeSheets = async () => { throw new Error('database gone'); };
    d.record('production', 'svc', new Date(thisHour), { retried: { yes: 5 } });
    await t.rejects(d.flush(), /database gone/);
    failing.writeSheets = writeSheets;
    await d.flush();
    await c.refresh();
    t.equal(await total(c, 'retried', thisHour), 5, 'kept dirty and written next time');
  });
});
