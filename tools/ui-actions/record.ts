/**
 * Runs the official UI's script of clicks (script.ts) against the Unleash reference's own UI and
 * records the events and configuration it leaves, normalised, as the fixture
 * test/web/official-ui.test.ts compares Vane's with. The objects get a random suffix, so the
 * reference may be shared with other runs.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { launchChromium } from '../../test/helpers/browser.js';
import { commandLine } from '../cli.js';
import { type LoggedEvent, UI_STEPS, eventsAfter, scriptConfiguration, scriptEvents, sessionGet, signIn, uiNames } from './script.js';

const USAGE = `
Usage: node dist/tools/ui-actions/record.js [options]

  --peer URL        the Unleash reference (default http://127.0.0.1:4242)
  --user NAME       its admin person (default admin)
  --password TEXT   their password (default unleash4all)
  --out FILE        the fixture (default test/fixtures/ui-actions/script.json)
`;

const { values } = commandLine(USAGE, {
  options: {
    peer: { type: 'string', default: 'http://127.0.0.1:4242' },
    user: { type: 'string', default: 'admin' },
    password: { type: 'string', default: 'unleash4all' },
    out: { type: 'string', default: 'test/fixtures/ui-actions/script.json' },
  },
});

const base = values.peer;
const names = uiNames(`-${randomBytes(3).toString('hex')}`);
const browser = await launchChromium();
try {
  const page = await (await browser.newContext({ viewport: { width: 1366, height: 860 } })).newPage();
  await signIn(page, base, values.user, values.password);
  const get = sessionGet(page, base);
  const newest = (await get('/api/admin/search/events?limit=1') as { events: LoggedEvent[] }).events[0]?.id ?? 0;
  const steps: { step: string; events: unknown[] }[] = [];
  let seen = newest;
  for (const step of UI_STEPS) {
    await step.run(page, base, names);
    // The reference appends its events after answering.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = await eventsAfter(get, seen);
    seen = Math.max(seen, ...events.map((event) => event.id));
    steps.push({ step: step.name, events: scriptEvents(events, names, values.user) });
    process.stdout.write(`${step.name}: ${steps.at(-1)?.events.length} events\n`);
  }
  const fixture = {
    _measured: `Unleash 8.2 reference's own UI, ${new Date().toISOString().slice(0, 10)}, signed in as ${values.user}; `
      + 'names, ids and times normalised (tools/ui-actions/record.ts)',
    steps,
    configuration: await scriptConfiguration(get, names),
  };
  writeFileSync(values.out, `${JSON.stringify(fixture, null, 2)}\n`);
  process.stdout.write(`written ${values.out}\n`);
} finally {
  await browser.close();
}
