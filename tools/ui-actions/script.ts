/**
 * One script of clicks in the official Unleash UI (8.2), run as a signed-in admin against the
 * Unleash reference by `record.ts` and against Vane by test/web/official-ui.test.ts: each step uses
 * the UI's own controls (roles, labels, texts), then the events and configuration it leaves are
 * normalised (names, ids, times) so both servers' can be compared.
 */
import type { Locator, Page, Request, Response } from 'playwright-core';

/** The objects the script creates, named with a suffix so several runs on one reference never meet. */
export type UiNames = Record<'flag' | 'segment' | 'tag' | 'context' | 'apiToken' | 'pat', string>;

export function uiNames(suffix = ''): UiNames {
  return {
    flag: `made-in-the-ui${suffix}`, segment: `ui-beta-testers${suffix}`, tag: `ui-tag${suffix}`,
    context: `ui-region${suffix}`, apiToken: `ui-frontend${suffix}`, pat: `ui-scripts${suffix}`,
  };
}

export interface UiStep {
  name: string;
  run: (page: Page, base: string, names: UiNames) => Promise<void>;
}

/** Signs in through the UI's own form; `submitting` is told just before the form is sent. */
export async function signIn(page: Page, base: string, username: string, password: string, submitting?: () => void): Promise<void> {
  await page.goto(`${base}/login`);
  await page.fill('input[name=username]', username);
  await page.fill('input[name=password]', password);
  submitting?.();
  await page.click('button[type=submit]');
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

/** Clicks, and waits for the write that click sends (its method and the end of its path). */
async function clickForWrite(page: Page, control: Locator, method: string, path: RegExp): Promise<Response> {
  const matches = (req: Request): boolean => req.method() === method && path.test(new URL(req.url()).pathname);
  // What became of the write, said when the wait runs out: sent or not, answered or failed, and when.
  const seen: string[] = [];
  const started = performance.now();
  const note = (what: string) => (req: Request) => {
    if (matches(req)) seen.push(`${what} ${req.url()} at ${Math.round(performance.now() - started)} ms`);
  };
  const onRequest = note('sent'), onFinished = note('answered'), onFailed = note('failed');
  page.on('request', onRequest).on('requestfinished', onFinished).on('requestfailed', onFailed);
  try {
    const written = page.waitForResponse((res) => matches(res.request()));
    await control.click();
    const res = await written.catch((err: unknown) => {
      throw new Error(`no answer to ${method} ${path} after the click: ${seen.length === 0 ? 'the UI sent nothing' : seen.join('; ')}`, { cause: err });
    });
    if (res.status() >= 400) throw new Error(`${method} ${res.url()}: ${res.status()} ${await res.text()}`);
    return res;
  } finally {
    page.off('request', onRequest).off('requestfinished', onFinished).off('requestfailed', onFailed);
  }
}

async function openFlag(page: Page, base: string, flag: string, tab?: string): Promise<void> {
  await page.goto(`${base}/projects/default/features/${flag}`);
  if (tab) await page.getByRole('tab', { name: tab }).click();
}

/** An environment's card on a flag's overview (a heading that holds the environment's controls). */
function environmentCard(page: Page, environment: string): Locator {
  return page.getByRole('heading', { level: 3 }).filter({ has: page.getByRole('heading', { name: environment, exact: true }) });
}

async function flagAction(page: Page, item: string): Promise<void> {
  await page.getByRole('button', { name: 'Feature flag actions' }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

/** The steps in order; a step starts from any page and leaves once its write has been answered. */
export const UI_STEPS: UiStep[] = [
  {
    name: 'create the flag', run: async (page, base, names) => {
      await page.goto(`${base}/projects/default`);
      await page.getByRole('button', { name: 'New feature flag' }).click();
      await page.getByLabel(/name/i).first().fill(names.flag);
      await page.getByRole('button', { name: /create feature flag/i }).click();
      await page.waitForURL(new RegExp(`/projects/default/features/${names.flag}`));
    },
  },
  {
    name: 'create a segment', run: async (page, base, names) => {
      await page.goto(`${base}/segments/create`);
      await page.getByLabel('Segment name').fill(names.segment);
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('button', { name: 'Create segment' }).click();
      // The UI asks once per person how easy that was (its CES prompt, POST /api/admin/feedback), over the list.
      const prompt = page.getByText('How easy was it to create a segment?');
      if (await prompt.waitFor({ timeout: 3000 }).then(() => true, () => false)) await page.keyboard.press('Escape');
      await page.getByRole('cell', { name: names.segment }).first().waitFor();
    },
  },
  {
    name: 'create a context field with legal values', run: async (page, base, names) => {
      await page.goto(`${base}/context/create`);
      await page.getByRole('textbox', { name: 'Context name' }).fill(names.context);
      await page.getByRole('textbox', { name: 'Context description (optional)' }).fill('Where the user is');
      for (const [value, description] of [['eu', 'Europe'], ['us', '']] as const) {
        await page.getByRole('textbox', { name: 'Legal value' }).fill(value);
        if (description) await page.getByRole('textbox', { name: 'Value description' }).fill(description);
        await page.getByRole('button', { name: 'Add', exact: true }).click();
      }
      await clickForWrite(page, page.getByRole('button', { name: 'Create context' }), 'POST', /\/api\/admin\/context$/);
    },
  },
  {
    name: 'add a gradual rollout with a constraint on that field and the segment in development', run: async (page, base, names) => {
      await openFlag(page, base, names.flag);
      await environmentCard(page, 'development').getByRole('button', { name: 'Add strategy' }).click();
      // Each card of the dialog shows its Configure button on hover; the card is named by its title.
      await page.locator('xpath=//span[text()="Gradual rollout"]/ancestor::*[.//button[normalize-space()="Configure"]][1]//button[normalize-space()="Configure"]').click();
      await page.getByRole('tab', { name: /Targeting/ }).click();
      await page.getByRole('combobox', { name: 'Select segments' }).click();
      await page.getByRole('option', { name: names.segment }).click();
      await page.getByRole('button', { name: 'Add constraint' }).click();
      // The script's own field: a built-in one (userId) may have been given legal values on a shared reference.
      await page.getByRole('combobox', { name: 'Context Field' }).click();
      await page.getByRole('option', { name: names.context }).click();
      // The UI asks the server about the constraint before it enables Save.
      await clickForWrite(page, page.getByRole('checkbox', { name: /^eu/ }), 'POST', /\/constraints\/validate$/);
      await page.getByRole('button', { name: 'Save strategy' }).click();
      await page.waitForURL((url) => !url.pathname.includes('/strategies/create'));
    },
  },
  {
    name: 'turn it on in development', run: async (page, base, names) => {
      await openFlag(page, base, names.flag);
      await clickForWrite(page, page.getByRole('switch', { name: 'development' }).first(), 'POST', /\/environments\/development\/on$/);
      await page.getByRole('switch', { name: 'development', checked: true }).first().waitFor();
    },
  },
  {
    name: 'add a variant in development', run: async (page, base, names) => {
      await openFlag(page, base, names.flag, 'Variants');
      await page.getByRole('button', { name: 'Add variant' }).first().click();
      await page.getByRole('textbox', { name: 'Variant name' }).fill('blue');
      await page.getByRole('textbox', { name: 'Value' }).fill('navy');
      await clickForWrite(page, page.getByRole('button', { name: 'Save variants' }), 'PATCH', /\/environments\/development\/variants$/);
    },
  },
  {
    name: 'tag the flag with a new value', run: async (page, base, names) => {
      await openFlag(page, base, names.flag);
      await page.getByRole('button', { name: 'Add tag' }).click();
      await page.getByRole('combobox', { name: 'Select values' }).fill(names.tag);
      await clickForWrite(page, page.getByRole('option', { name: `Create new value "${names.tag}"` }), 'POST', /\/api\/admin\/tags$/);
      // The values list stays open over the dialog's buttons.
      await page.getByRole('combobox', { name: 'Select values' }).press('Escape');
      await clickForWrite(page, page.getByRole('button', { name: 'Save tags' }), 'PUT', /\/tags$/);
      await page.getByRole('button', { name: `simple:${names.tag}` }).waitFor();
    },
  },
  {
    name: 'edit its description and type', run: async (page, base, names) => {
      await openFlag(page, base, names.flag, 'Settings');
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByRole('textbox', { name: 'Description' }).fill('Edited in the UI');
      await page.getByRole('combobox', { name: 'Flag type' }).click();
      await page.getByRole('option', { name: 'Experiment' }).click();
      await clickForWrite(page, page.getByRole('button', { name: 'Save' }), 'PATCH', new RegExp(`/features/${names.flag}$`));
    },
  },
  {
    name: 'mark it stale', run: async (page, base, names) => {
      await openFlag(page, base, names.flag);
      await flagAction(page, 'Toggle stale state');
      await clickForWrite(page, page.getByRole('button', { name: 'Flip to stale' }), 'PATCH', new RegExp(`/features/${names.flag}$`));
    },
  },
  {
    name: 'add it to favourites', run: async (page, base, names) => {
      await openFlag(page, base, names.flag);
      await page.getByRole('button', { name: 'Feature flag actions' }).click();
      await clickForWrite(page, page.getByRole('menuitem', { name: 'Add to favorites' }), 'POST', new RegExp(`/features/${names.flag}/favorites$`));
    },
  },
  {
    name: 'create a frontend API token', run: async (page, base, names) => {
      await page.goto(`${base}/admin/api`);
      await page.getByRole('button', { name: 'New API token' }).first().click();
      await page.getByRole('textbox', { name: 'Token name' }).fill(names.apiToken);
      await page.getByRole('radio', { name: /Frontend SDK/ }).check();
      await clickForWrite(page, page.getByRole('button', { name: 'Create token' }), 'POST', /\/api\/admin\/api-tokens$/);
      await page.getByRole('dialog', { name: 'New token created' }).getByRole('button', { name: 'Close' }).click();
    },
  },
  {
    name: 'create a personal access token', run: async (page, base, names) => {
      await page.goto(`${base}/profile/personal-api-tokens`);
      await page.getByRole('button', { name: 'New token' }).click();
      await page.getByRole('textbox', { name: 'Description' }).fill(names.pat);
      await clickForWrite(page, page.getByRole('button', { name: 'Create token' }), 'POST', /\/api\/admin\/user\/tokens$/);
      await page.getByRole('dialog', { name: 'Personal API token created' }).getByRole('button', { name: 'Close' }).click();
    },
  },
  {
    // Deleted again at once: there is one invite link, and a reference shared by several runs keeps none.
    name: 'create an invite link, then delete it', run: async (page, base) => {
      await page.goto(`${base}/admin/invite-link`);
      await clickForWrite(page, page.getByRole('button', { name: 'Create invite link' }), 'POST', /\/invite-link\/tokens$/);
      await page.getByRole('dialog', { name: 'Invite link created' }).getByRole('button', { name: 'Close' }).click();
      await page.goto(`${base}/admin/invite-link`);
      await page.getByRole('button', { name: 'Delete link' }).click();
      const confirm = page.getByRole('dialog', { name: 'Are you sure you want to delete your invite link?' });
      await clickForWrite(page, confirm.getByRole('button', { name: 'Yes, I\'m sure' }), 'PUT', /\/invite-link\/tokens\/[^/]+$/);
    },
  },
  {
    name: 'run the playground for a region', run: async (page, base, names) => {
      await page.goto(`${base}/playground`);
      await page.getByRole('combobox', { name: 'Context field' }).click();
      await page.getByRole('option', { name: names.context, exact: true }).click();
      // A field with legal values offers them to pick.
      await page.getByRole('combobox', { name: 'Value' }).click();
      await page.getByRole('option', { name: /^eu/ }).click();
      await page.getByRole('combobox', { name: 'Value' }).press('Escape');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await clickForWrite(page, page.getByRole('button', { name: 'Try configuration' }), 'POST', /\/playground\/advanced$/);
      await page.getByRole('heading', { name: /^Results \(\d+\)$/ }).waitFor();
    },
  },
  {
    name: 'archive it', run: async (page, base, names) => {
      await openFlag(page, base, names.flag);
      await flagAction(page, 'Archive feature flag');
      await clickForWrite(page, page.getByRole('button', { name: 'Archive flag' }), 'DELETE', new RegExp(`/features/${names.flag}$`));
    },
  },
  {
    name: 'revive it from the archive', run: async (page, base, names) => {
      await page.goto(`${base}/archive`);
      await page.getByRole('textbox', { name: /^Search/ }).fill(names.flag);
      await page.getByRole('row').filter({ hasText: names.flag }).getByRole('button', { name: 'Revive' }).click();
      await clickForWrite(page, page.getByRole('button', { name: 'Revive feature flag' }), 'POST', /\/revive$/);
    },
  },
];

/** An event as the event search answers it, the fields compared. */
export interface LoggedEvent {
  id: number;
  type: string;
  createdBy: string;
  project?: string | null;
  featureName?: string | null;
  environment?: string | null;
  data?: unknown;
  preData?: unknown;
  tags?: unknown;
}

/** A GET with the browser's session, as the signed-in person. */
export function sessionGet(page: Page, base: string): (path: string) => Promise<unknown> {
  return async (path) => {
    const res = await page.request.get(`${base}${path}`);
    if (!res.ok()) throw new Error(`GET ${path}: ${res.status()} ${await res.text()}`);
    return (await res.json()) as unknown;
  };
}

/** The events after id `after`, newest first, a page at a time. */
export async function eventsAfter(get: (path: string) => Promise<unknown>, after: number): Promise<LoggedEvent[]> {
  const events: LoggedEvent[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = (await get(`/api/admin/search/events?limit=100&offset=${offset}`) as { events: LoggedEvent[] }).events;
    const newer = page.filter((event) => event.id > after);
    events.push(...newer);
    if (newer.length < page.length || page.length === 0) return events;
  }
}

/** Server-made values: compared only as present (or null). */
const MADE_BY_THE_SERVER = new Set(['id', 'createdAt', 'expiresAt', 'secret', 'url', 'seenAt', 'segments']);
/** Only one invite link exists, so its events name none of the script's objects. */
const UNNAMED_TYPES = new Set(['public-signup-token-created', 'public-signup-token-updated']);

function normalised(value: unknown, names: [string, string][], key = ''): unknown {
  if (MADE_BY_THE_SERVER.has(key)) return value == null ? value : Array.isArray(value) ? value.map(() => '<made>') : '<made>';
  if (typeof value === 'string') return names.reduce((text, [label, name]) => text.replaceAll(name, `<${label}>`), value);
  if (Array.isArray(value)) return value.map((item) => normalised(item, names));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalised(v, names, k)]));
  }
  return value;
}

/** The names, longest first, so a name inside another is replaced after it. */
function namePairs(names: UiNames): [string, string][] {
  return Object.entries(names).sort((a, b) => b[1].length - a[1].length);
}

/** Any answer or configuration with the script's names and the server-made values normalised. */
export function normalise(value: unknown, names: UiNames): unknown {
  return normalised(value, namePairs(names));
}

/** The script's events (by the UI's person, about its objects), oldest first, normalised. */
export function scriptEvents(events: LoggedEvent[], names: UiNames, person: string): unknown[] {
  const mine = events.filter((event) => event.createdBy === person
    && (UNNAMED_TYPES.has(event.type) || Object.values(names).some((name) => JSON.stringify(event).includes(name))));
  return mine.sort((a, b) => a.id - b.id).map(({ type, project, featureName, environment, data, preData, tags }) => normalise(
    { type, project: project ?? null, featureName: featureName ?? null, environment: environment ?? null,
      data: data ?? null, preData: preData ?? null, tags: tags ?? [] }, names));
}

/** What the script leaves in the configuration: the flag, its tags, the context field, both tokens. */
export async function scriptConfiguration(get: (path: string) => Promise<unknown>, names: UiNames): Promise<unknown> {
  const flag = await get(`/api/admin/projects/default/features/${names.flag}`) as Record<string, unknown> & { environments: Record<string, unknown>[] };
  const { tags } = await get(`/api/admin/features/${names.flag}/tags`) as { tags: unknown };
  const context = await get(`/api/admin/context/${names.context}`) as Record<string, unknown>;
  const { tokens } = await get('/api/admin/api-tokens') as { tokens: Record<string, unknown>[] };
  const { pats } = await get('/api/admin/user/tokens') as { pats: Record<string, unknown>[] };
  const token = tokens.find((entry) => entry.tokenName === names.apiToken);
  return normalise({
    flag: {
      name: flag.name, type: flag.type, description: flag.description, project: flag.project, stale: flag.stale,
      archived: flag.archived, impressionData: flag.impressionData,
      environments: flag.environments.map(({ name, enabled, strategies, variants }) => ({ name, enabled, strategies, variants })),
    },
    tags,
    context: { name: context.name, description: context.description, legalValues: context.legalValues, stickiness: context.stickiness },
    apiToken: token && { tokenName: token.tokenName, type: token.type, environment: token.environment, projects: token.projects },
    pat: pats.filter((pat) => pat.description === names.pat).map(({ description }) => ({ description })),
  }, names);
}
