/**
 * The official SDKs against a running Vane: what they decide from what Vane serves equals Vane's
 * own playground (the playground's promise, docs/rules.md D2), and what they report shows up in the admin
 * views. Needs no network beyond loopback.
 */
import { once } from 'node:events';
import t from 'tap';
import { InMemStorageProvider, Unleash } from 'unleash-client';
import { UnleashClient } from 'unleash-proxy-client';
import { ADMIN, buildTestApp, JSON_ADMIN } from '../../helpers/app.js';
import { eventually } from '../../helpers/wait.js';
import { createToken } from './helpers.js';
import { randomConfiguration, randomContext, seeded } from './random-config.js';

const APP_NAME = 'vane-sdk-test';

interface PlaygroundEntry {
  isEnabled: boolean;
  variant: { name: string; enabled: boolean; payload?: unknown };
}

t.test('official SDKs read Vane', async (t) => {
  const app = await buildTestApp(t);
  const seed = Number(process.env.SDK_TEST_SEED ?? Date.now() % 100_000);
  t.comment(`seed ${seed} (SDK_TEST_SEED to replay)`);
  const rng = seeded(seed);
  const flags = await randomConfiguration(app, rng, 24);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const clientToken = await createToken(app, 'client');
  const frontendToken = await createToken(app, 'frontend');

  await t.test('server SDK isEnabled/getVariant equal the advanced playground for every flag', async (t) => {
    const sdk = new Unleash({
      appName: APP_NAME, url: `${base}/api/`, customHeaders: { Authorization: clientToken },
      refreshInterval: 60_000, disableMetrics: true, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
    });
    t.teardown(() => sdk.destroy());
    sdk.on('error', () => undefined);
    await once(sdk, 'synchronized');
    let compared = 0;
    for (let i = 0; i < 40; i++) {
      const context = randomContext(rng);
      const res = await app.inject({
        method: 'POST', url: '/api/admin/playground/advanced', headers: JSON_ADMIN,
        payload: { environments: ['development'], projects: ['default'], context: { ...context, appName: APP_NAME } },
      });
      t.equal(res.statusCode, 200);
      const features = res.json().features as Array<{ name: string; environments: { development: PlaygroundEntry[] } }>;
      t.equal(features.length, flags.length);
      for (const feature of features) {
        const expected = feature.environments.development[0]!;
        const sdkContext = { ...context, appName: APP_NAME };
        const enabled = sdk.isEnabled(feature.name, sdkContext);
        const variant = sdk.getVariant(feature.name, sdkContext);
        // Without a userId, a variant with userId stickiness is drawn at random by the SDK (its
        // getSeed falls back to Math.random): only the enabled state is comparable then.
        const comparableVariant = context.userId !== undefined;
        const same = enabled === expected.isEnabled && (!comparableVariant || variant.name === expected.variant.name)
          && variant.enabled === expected.variant.enabled
          && (!comparableVariant || JSON.stringify(variant.payload ?? null) === JSON.stringify(expected.variant.payload ?? null));
        if (!same) t.fail(`${feature.name} ${JSON.stringify(context)}: sdk ${enabled} ${JSON.stringify(variant)} vs playground ${expected.isEnabled} ${JSON.stringify(expected.variant)}`);
        compared++;
      }
    }
    t.equal(compared, 40 * flags.length, 'every flag compared for every context');
  });

  await t.test('browser SDK toggles equal /api/frontend', async (t) => {
    for (let i = 0; i < 8; i++) {
      // A userId always: without one, userId-sticky variants are drawn at random (see above).
      const context = { userId: String(i), ...randomContext(rng) } as { userId: string; sessionId?: string; properties?: Record<string, string> };
      const client = new UnleashClient({
        url: `${base}/api/frontend`, clientKey: frontendToken, appName: 'web', context,
        refreshInterval: 0, disableRefresh: true, disableMetrics: true,
      });
      const ready = new Promise<void>((resolve) => client.on('ready', () => resolve()));
      await client.start();
      await ready;
      const expected = await app.inject({
        method: 'POST', url: '/api/frontend', headers: { authorization: frontendToken, 'content-type': 'application/json' },
        payload: { context: { ...context, appName: 'web', environment: 'default' } },
      });
      t.same(client.getAllToggles(), expected.json().toggles, JSON.stringify(context));
      client.stop();
    }
  });

  await t.test('metrics from the server SDK appear as counts and lastSeenAt', async (t) => {
    const sdk = new Unleash({
      appName: 'metrics-app', url: `${base}/api/`, customHeaders: { Authorization: clientToken }, refreshInterval: 60_000,
      metricsInterval: 60_000, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
    });
    sdk.on('error', () => undefined);
    await once(sdk, 'synchronized');
    const name = flags[0]!;
    let yes = 0;
    for (let i = 0; i < 25; i++) if (sdk.isEnabled(name, { userId: String(i) })) yes++;
    await sdk.destroyWithFlush();
    const usage = (await app.inject({ method: 'GET', url: `/api/admin/client-metrics/features/${name}`, headers: ADMIN })).json();
    t.equal(usage.lastHourUsage.length, 1);
    t.match(usage.lastHourUsage[0], { environment: 'development', yes, no: 25 - yes });
    t.same(usage.seenApplications, ['metrics-app']);
    const seen = await app.clientMetrics.lastSeen(name);
    t.ok(seen.get('development'), 'lastSeenAt set for the environment');
    const flag = (await app.inject({ method: 'GET', url: `/api/admin/projects/default/features/${name}`, headers: ADMIN })).json();
    const development = flag.environments.find((e: { name: string }) => e.name === 'development');
    t.match(development, { lastSeenAt: seen.get('development')!.toISOString(), yes, no: 25 - yes }, 'the admin flag view shows them');
    t.same(Object.keys(development).slice(0, 5), ['name', 'lastSeenAt', 'enabled', 'yes', 'no'], 'in Unleash\'s places');
    const listed = (await app.inject({ method: 'GET', url: '/api/admin/projects/default/features', headers: ADMIN })).json()
      .features.find((f: { name: string }) => f.name === name);
    t.equal(listed.environments.find((e: { name: string }) => e.name === 'development').lastSeenAt, seen.get('development')!.toISOString(), 'and the project flag list');
    for (const other of flag.environments.filter((e: { name: string }) => e.name !== 'development')) {
      t.match(other, { lastSeenAt: null, yes: 0, no: 0 }, `${other.name}: not seen`);
    }
    // The SDK registers when it starts, without waiting for the answer ('synchronized' does not either).
    const registered = async () => (await app.inject({ method: 'GET', url: '/api/admin/metrics/applications', headers: ADMIN }))
      .json<{ applications: Array<{ appName: string }> }>().applications.some((a) => a.appName === 'metrics-app');
    t.ok(await eventually(registered), 'the SDK registered');
  });
});
