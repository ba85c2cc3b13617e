/**
 * Differential tester, part 4: the SDK-facing surfaces asked the same way on both servers — API
 * tokens, the frontend API (POST and GET).
 */
/** Creates an API token of `type` on `base` and returns its secret. */
export async function createToken(base, adminToken, type, environment, projects) {
    const res = await fetch(`${base}/api/admin/api-tokens`, {
        method: 'POST',
        headers: { authorization: adminToken, 'content-type': 'application/json' },
        body: JSON.stringify({ tokenName: `difftest-${type}-${environment}-${Date.now()}`, type, environment, projects }),
    });
    const text = await res.text();
    if (res.status !== 201)
        throw new Error(`${base}: creating a ${type} token answered ${res.status} ${text}`);
    return JSON.parse(text).secret;
}
export function createFrontendToken(base, adminToken, environment, projects) {
    return createToken(base, adminToken, 'frontend', environment, projects);
}
/** The frontend API's answer to one request, as text. */
export async function askFrontend(base, token, request) {
    const res = request.method === 'POST'
        ? await fetch(`${base}/api/frontend`, {
            method: 'POST',
            headers: { authorization: token, 'content-type': 'application/json' },
            body: JSON.stringify({ context: request.context }),
        })
        : await fetch(`${base}/api/frontend${request.query === '' ? '' : `?${request.query}`}`, { headers: { authorization: token } });
    return { status: res.status, body: await res.text() };
}
/** A context as a frontend GET query: top-level scalars as `k=v`, properties as `properties[k]=v`. */
export function frontendQuery(context) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(context)) {
        if (key === 'properties' && value !== null && typeof value === 'object') {
            for (const [name, inner] of Object.entries(value))
                if (isScalar(inner))
                    query.append(`properties[${name}]`, String(inner));
        }
        else if (isScalar(value)) {
            query.append(key, String(value));
        }
    }
    return query.toString();
}
function isScalar(value) {
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
/** The frontend API's toggles by name; a failed request is one `<status>` entry. */
export function frontendAnswers({ status, body }) {
    if (status !== 200)
        return new Map([['<status>', `${status}`]]);
    const toggles = JSON.parse(body).toggles;
    return new Map(toggles.map((toggle) => [toggle.name, JSON.stringify(toggle)]));
}
/**
 * Asks both servers the same question twice and compares the answers flag by flag. A flag whose
 * answer changes between two asks of one server is random (a variant sticky on a missing field,
 * `random` stickiness, the random sessionId the frontend API gives a context without one). A flag
 * that differs between the servers while constant on each is asked `more` times again before it
 * counts as a difference, so that a random answer that happened to repeat is not reported as one.
 */
export async function compareAnswers(ask, flags, more = 6) {
    const seen = { vane: [], peer: [] };
    const round = async () => {
        const [vane, peer] = await Promise.all([ask('vane'), ask('peer')]);
        seen.vane.push(vane);
        seen.peer.push(peer);
    };
    await round();
    await round();
    const names = [...new Set([...flags, ...seen.peer[0].keys(), ...seen.vane[0].keys()])];
    const varies = (answers, name) => answers.some((a) => a.get(name) !== answers[0].get(name));
    const differing = () => names.filter((name) => !varies(seen.vane, name) && !varies(seen.peer, name) && seen.vane[0].get(name) !== seen.peer[0].get(name));
    if (differing().length > 0)
        for (let i = 0; i < more; i++)
            await round();
    const random = names.filter((name) => varies(seen.vane, name) || varies(seen.peer, name));
    const differences = differing().map((flag) => ({ flag, peer: seen.peer[0].get(flag), vane: seen.vane[0].get(flag) }));
    return { compared: names.length - random.length, random, differences };
}
//# sourceMappingURL=surfaces.js.map