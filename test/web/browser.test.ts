/**
 * The pages in a real browser: Debian's chromium driven by playwright-core against a Vane started
 * here. Screenshots go to SCREENSHOT_DIR (docs/screenshots when refreshing the README's images),
 * else to a temporary directory.
 */
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import { ADMIN, JSON_ADMIN, dropDatabase, testConfig } from '../helpers/app.js';
import { CHROMIUM, hasChromium, launchChromium, listening } from '../helpers/browser.js';

const ADMIN_PASSWORD = 'First-Admin-Pass-1';
const SHOTS = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'vane-shots-'));
if (!process.env.SCREENSHOT_DIR) process.once('exit', () => rmSync(SHOTS, { recursive: true, force: true }));

if (!hasChromium()) {
  t.comment(`SKIP: browser tests need Debian's chromium at ${CHROMIUM} (apt-get install chromium); not found, so they did not run`);
  t.pass('skipped: no chromium');
} else {
  t.test('the pages in chromium', { timeout: 240_000 }, async (t) => {
    mkdirSync(SHOTS, { recursive: true });
    const config = await testConfig(t, { INIT_ADMIN_USER: 'admin', INIT_ADMIN_PASSWORD: ADMIN_PASSWORD });
    const app = await buildApp(config, { logger: false });
    const base = await listening(app);
    const browser: Browser = await launchChromium();
    t.teardown(async () => {
      await browser.close();
      await app.close();
      await dropDatabase(config);
    });

    // Configuration: two flags, one on in development; a change request that switches the other on.
    const api = async (method: 'POST' | 'PUT', url: string, payload: object) => {
      const res = await app.inject({ method, url, headers: JSON_ADMIN, payload });
      if (res.statusCode >= 300) throw new Error(`${url}: ${res.body}`);
      return res.json();
    };
    const FLAGS = '/api/admin/projects/default/features';
    await api('POST', FLAGS, { name: 'web-checkout' });
    await api('POST', `${FLAGS}/web-checkout/environments/development/strategies`, {
      name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'web-checkout' },
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2'] }],
    });
    await app.inject({ method: 'POST', url: `${FLAGS}/web-checkout/environments/development/on`, headers: ADMIN });
    await api('POST', FLAGS, { name: 'web-banner' });
    const cr = await api('POST', '/api/admin/projects/default/environments/development/change-requests', {
      feature: 'web-banner', action: 'updateEnabled', payload: { enabled: true },
    });
    // 50 flags in their own project: × 2 environments × 100 user ids = 10 000 results.
    await api('POST', '/api/admin/projects', { id: 'stress', name: 'Stress' });
    for (let i = 0; i < 50; i++) await api('POST', '/api/admin/projects/stress/features', { name: `bulk-${String(i).padStart(2, '0')}` });
    const invite = await api('POST', '/api/admin/invite-link/tokens', { name: 'team', expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() });

    const problems: string[] = [];
    const watch = (page: Page, name: string) => {
      page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`${name}: console error: ${msg.text()}`); });
      page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`));
      page.on('requestfailed', (req) => problems.push(`${name}: request failed: ${req.url()} ${req.failure()?.errorText}`));
      page.on('response', (res) => { if (res.status() >= 400) problems.push(`${name}: ${res.status()} for ${res.url()}`); });
    };
    const newPage = async (name: string): Promise<{ context: BrowserContext; page: Page }> => {
      const context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
      const page = await context.newPage();
      watch(page, name);
      return { context, page };
    };
    const shot = (page: Page, file: string) => page.screenshot({ path: join(SHOTS, file), fullPage: true });

    await t.test('invite link → sign-up page → signed in as a Viewer', async (t) => {
      const { page } = await newPage('viewer');
      await page.goto(`${base}/new-user?invite=${invite.secret}`);
      await page.getByText('invited you to Vane as a Viewer').waitFor();
      t.match(await page.locator('#invite').innerText(), /^admin invited you/);
      await page.getByLabel('Name').fill('Vera Viewer');
      await page.getByLabel('E-mail').fill('vera@example.com');
      await page.getByLabel('Password', { exact: true }).fill('weak');
      t.equal(await page.locator('#rules li.met').count(), 3, 'rules shown as you type: 3 of 7 met by "weak"');
      await page.getByLabel('Password', { exact: true }).fill('Vera-Viewer-42');
      t.equal(await page.locator('#rules li.met').count(), 7);
      await shot(page, 'new-user.png');
      await page.getByRole('button', { name: 'Create account and sign in' }).click();
      await page.waitForURL(`${base}/vane/playground`);
      await page.locator('#whoami').waitFor();
      await page.locator('#query').waitFor(); // every request of the page answered before the next navigation
      t.equal(await page.locator('#whoami').innerText(), 'Vera Viewer (Viewer)');

      await t.test('a playground link with a context shows the flags and their states', async (t) => {
        const context = JSON.stringify({ appName: 'web', userId: '1,3' });
        await page.goto(`${base}/vane/playground?environments=development&projects=default&context=${encodeURIComponent(context)}`);
        await page.locator('[data-flag="web-checkout"]').first().waitFor();
        // Flag | Project | Environment | Context | Enabled | Variant
        const rows = await page.locator('.vgrid .r').evaluateAll((els) => els.map((el) => [...el.children].map((c) => c.textContent).join('|')));
        t.same(rows.sort(), [
          'web-banner|default|development|userId=1|disabled|disabled',
          'web-banner|default|development|userId=3|disabled|disabled',
          'web-checkout|default|development|userId=1|enabled|disabled',
          'web-checkout|default|development|userId=3|disabled|disabled',
        ], 'two flags × two userIds, with their states');
        t.equal(await page.getByLabel('User id').inputValue(), '1,3', 'the context editor shows the query of the link');
        await page.locator('.vgrid .r', { hasText: 'userId=1' }).filter({ hasText: 'web-checkout' }).click();
        await page.locator('#detail .strategy').waitFor();
        t.match(await page.locator('#detail').innerText(), /userId IN 1, 2/);
        await shot(page, 'playground.png');

        // Raw JSON mode: the same context as text; an edit there is what runs (and lands in the URL).
        await page.getByLabel('Edit the context as JSON').check();
        t.same(JSON.parse(await page.getByLabel('Context (JSON)').inputValue()), { appName: 'web', userId: '1,3' });
        await page.getByLabel('Context (JSON)').fill('{"appName": "web", "userId": "2", "properties": {"plan": "pro"}}');
        await page.getByRole('button', { name: 'Evaluate' }).click();
        await page.getByText('Showing 2 of 2 results').waitFor();
        t.match(decodeURIComponent(page.url()), /"userId":"2","properties":\{"plan":"pro"\}/);
        await page.getByLabel('Edit the context as JSON').uncheck();
        t.equal(await page.getByLabel('Property 1 name').inputValue(), 'plan', 'custom properties back in the fields');
        await page.goBack();
        await page.getByText('Showing 4 of 4 results').waitFor();
        await page.locator('.vgrid .r', { hasText: 'userId=1' }).filter({ hasText: 'web-checkout' }).waitFor();

        await page.getByLabel('Outcome').selectOption('enabled');
        t.equal(await page.locator('.vgrid .r').count(), 1, 'filtered by outcome');
        t.match(page.url(), /outcome=enabled/);
        await page.getByLabel('Outcome').selectOption('all');
        await page.getByLabel('Filter by flag name').fill('banner');
        t.equal(await page.locator('.vgrid .r').count(), 2, 'filtered by name');
      });

      await t.test('10 000 results stay usable: only the visible rows are in the page; keys move through all of them', async (t) => {
        const userIds = Array.from({ length: 100 }, (_, i) => String(i + 1)).join(',');
        const context = JSON.stringify({ appName: 'web', userId: userIds });
        await page.goto(`${base}/vane/playground?environments=development,production&projects=stress&context=${encodeURIComponent(context)}`);
        await page.getByText('Showing 10000 of 10000 results (50 flags).').waitFor();
        const drawn = await page.locator('.vgrid .r').count();
        t.ok(drawn > 0 && drawn < 60, `${drawn} rows in the DOM`);
        await page.locator('.vgrid .body').focus();
        await page.keyboard.press('End');
        await page.locator('.vgrid .r[aria-rowindex="10001"]').waitFor();
        t.equal(await page.locator('.vgrid .r.active').getAttribute('aria-rowindex'), '10001');
        const lastFlag = await page.locator('.vgrid .r.active').getAttribute('data-flag');
        await page.keyboard.press('Enter');
        t.equal(await page.locator('#detail-title').innerText(), lastFlag, 'Enter explains the chosen result');
        await page.getByLabel('Filter by flag name').fill('bulk-07');
        await page.getByText('Showing 200 of 10000 results').waitFor();
        t.pass('filtered within the 10 000');
      });

      await t.test('a Viewer cannot create a flag: the page says so, the API answers 403', async (t) => {
        await page.goto(`${base}/vane/flags`);
        await page.locator('#no-create').waitFor();
        t.match(await page.locator('#no-create').innerText(), /your role is Viewer.*CREATE_FEATURE/);
        t.ok(await page.getByRole('button', { name: 'Create flag' }).isDisabled());
        await page.getByText('web-checkout').waitFor();
        await shot(page, 'flags-viewer.png');
        const res = await page.request.post(`${base}/api/admin/projects/default/features`, {
          data: { name: 'by-viewer' }, headers: { origin: base },
        });
        t.equal(res.status(), 403);
        t.equal((await res.json()).name, 'NoAccessError');
      });

      await t.test('the change-request preview marks the result the change request changes', async (t) => {
        const context = JSON.stringify({ appName: 'web' });
        await page.goto(`${base}/vane/playground?changeRequest=${cr.id}&context=${encodeURIComponent(context)}`);
        await page.locator('.vgrid .r[data-flag="web-banner"]').waitFor();
        t.equal(await page.locator('.vgrid .r[data-flag="web-banner"]').getAttribute('data-changed'), 'true');
        t.equal(await page.locator('.vgrid .r[data-flag="web-checkout"]').getAttribute('data-changed'), null);
        t.match(await page.locator('.vgrid .r[data-flag="web-banner"]').innerText(), /Changed/);
        await page.locator('.vgrid .r[data-flag="web-banner"]').click();
        await page.getByText('The change request changes this result.').waitFor();
        await shot(page, 'change-request-preview.png');
      });
    });

    await t.test('sign in as the first admin; invite links and event log pages', async (t) => {
      const { page } = await newPage('admin');
      await page.goto(`${base}/vane/login`);
      await shot(page, 'login.png');
      await page.getByLabel('Username or e-mail').fill('admin');
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/vane/playground`);
      await page.locator('#query').waitFor();

      await page.getByRole('link', { name: 'Invite links' }).click();
      await page.getByRole('cell', { name: 'team', exact: true }).waitFor();
      await page.getByLabel('Name').fill('contractors');
      await page.getByRole('button', { name: 'Create link' }).click();
      await page.getByText('Created. Send this URL').waitFor();
      await page.getByRole('cell', { name: 'contractors', exact: true }).waitFor();
      t.equal(await page.locator('tbody tr').count(), 2);
      await shot(page, 'invite-links.png');

      await page.getByRole('link', { name: 'Event log' }).click();
      await page.getByRole('cell', { name: 'public-signup-token-created' }).first().waitFor();
      await page.getByLabel('Type (comma-separated)').fill('feature-created');
      await page.getByLabel('Project (comma-separated)').fill('default');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Events 1–2 of 2').waitFor();
      t.match(page.url(), /type=feature-created&project=default/);
      await page.getByLabel('Project (comma-separated)').fill('');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Events 1–50 of 52').waitFor();
      await page.getByRole('button', { name: 'Older' }).click();
      await page.getByText('Events 51–52 of 52').waitFor();
      t.pass('paging through the log');
      await page.getByRole('button', { name: 'Newer' }).click();
      await page.getByText('Events 1–50 of 52').waitFor();
      await shot(page, 'event-log.png');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${base}/vane/login`);
      const after = await page.request.get(`${base}/api/admin/user`);
      t.equal(after.status(), 401, 'signed out: the cookie no longer works');
    });

    t.same(problems, [], 'no console errors and no failed requests on any page');

    await t.test('an expired session goes back to the login page', async (t) => {
      const { page } = await newPage('expiry');
      await page.goto(`${base}/vane/login`);
      await page.getByLabel('Username or e-mail').fill('vera@example.com');
      await page.getByLabel('Password').fill('Vera-Viewer-42');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/vane/playground`);
      await page.locator('#query').waitFor();
      await app.database.db.collection('sessions').deleteMany({});
      // Ended in the database, behind this instance's back: seen once its session look-up cache
      // lapses (REVISION_POLL_MS, as for a sign-out on another instance).
      await new Promise((r) => setTimeout(r, app.config.REVISION_POLL_MS + 50));
      // Only until the page arrives: its script leaves for /login at once, maybe before 'load'.
      await page.goto(`${base}/vane/playground`, { waitUntil: 'commit' });
      await page.waitForURL(/\/vane\/login\?next=%2Fvane%2Fplayground&expired=1/);
      await page.getByText('Your session has ended').waitFor();
      t.pass('back at /login with a note');
    });
  });
}
