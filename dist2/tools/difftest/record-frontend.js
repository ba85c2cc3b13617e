/**
 * Records the Unleash reference's frontend API answers into a fixture, so that a test can hold
 * Vane to them without the reference server:
 * `node dist/tools/difftest/record-frontend.js --peer URL test/fixtures/frontend-api/NAME.json`.
 *
 * The fixture names its `configuration` (admin requests, config.ts's form), the token's
 * `environment` and its `requests` (`{method: "POST", context}` or `{method: "GET", query}`); this
 * applies the configuration to the reference (flag names must be new there), asks every request
 * twice from this machine and writes each answer beside its request (`status`, `body`), marked
 * `random` when the two answers differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { applyConfiguration } from './config.js';
import { askFrontend, createFrontendToken } from './surfaces.js';
const { values: args, positionals } = parseArgs({
    allowPositionals: true,
    options: {
        peer: { type: 'string', default: 'http://127.0.0.1:4301' },
        'peer-token': { type: 'string', default: '*:*.peer-admin-token' },
    },
});
async function main() {
    const file = positionals[0];
    if (file === undefined)
        throw new Error('usage: record-frontend.js --peer URL FIXTURE.json');
    const fixture = JSON.parse(readFileSync(file, 'utf8'));
    const statuses = await applyConfiguration(args.peer, args['peer-token'], fixture.configuration);
    statuses.forEach((status, i) => {
        if (status >= 300)
            throw new Error(`request ${i} answered ${status}: ${JSON.stringify(fixture.configuration[i])}`);
    });
    const token = await createFrontendToken(args.peer, args['peer-token'], fixture.environment, ['default']);
    // Unleash's frontend API reads a cache refreshed on the next configuration revision (about 1 s).
    await sleep(3000);
    for (const request of fixture.requests) {
        const first = await askFrontend(args.peer, token, request);
        const second = await askFrontend(args.peer, token, request);
        request.status = first.status;
        request.body = first.body;
        if (first.body !== second.body)
            request.random = true;
        else
            delete request.random;
    }
    fixture.source = `recorded from the Unleash reference (${args.peer}) by tools/difftest/record-frontend.ts on ${new Date().toISOString().slice(0, 10)}`;
    writeFileSync(file, `${JSON.stringify(fixture, null, 1)}\n`);
    console.log(`${fixture.requests.length} answers recorded into ${file}`);
}
await main();
//# sourceMappingURL=record-frontend.js.map