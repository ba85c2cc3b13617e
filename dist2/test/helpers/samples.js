import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const dir = fileURLToPath(new URL('../../../test/fixtures/unleash-samples/', import.meta.url));
export function loadSamples() {
    return readdirSync(dir)
        .filter((file) => /^\d\d-.*\.json$/.test(file))
        .sort()
        .map((file) => ({ file, number: Number(file.slice(0, 2)), ...JSON.parse(readFileSync(dir + file, 'utf8')) }));
}
/** Sends a sample's request as recorded (headers included), to an app whose admin token is the peer's. */
export async function replay(app, sample) {
    const { method, path, headers, body } = sample.request;
    return await app.inject({
        method: method,
        url: path,
        headers,
        ...(body === undefined || body === null ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
}
/** The reference server's admin token, so samples replay with their own headers. */
export const PEER_ENV = { INIT_ADMIN_API_TOKENS: '*:*.peer-admin-token', INIT_ADMIN_API_TOKEN_NAME: 'peer-admin' };
//# sourceMappingURL=samples.js.map