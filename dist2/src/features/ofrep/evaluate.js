/**
 * OFREP's answers from the frontend API's evaluation: the same flags of the token's scope, each
 * decided by `decideScoped` for the context the frontend API builds (frontend-api/evaluate.ts), then
 * rendered by mapping.ts. Pure, like the frontend API's answer: the bulk evaluation runs on the
 * main thread or in a worker (worker.ts) and gives the same bytes and ETag in both.
 */
import { ContextReader, mixBlock } from '../../evaluation/index.js';
import { combinedEtag, decideScoped, scopeFlags, } from '../frontend-api/evaluate.js';
import { OfrepFlag } from './mapping.js';
/** The scope's flags as OFREP renders them, made once per state and scope, aligned with `scoped.flags`. */
function ofrepFlags(scoped) {
    const memo = scoped.rendered.get('ofrep');
    if (memo)
        return memo;
    const flags = scoped.flags.map(({ data, env }) => new OfrepFlag(data.name, env));
    scoped.rendered.set('ofrep', flags);
    return flags;
}
/** `{"flags":[…],"eventStreams":[…]}` for one context, with a strong ETag of its content (frontend-api/evaluate.ts `combinedEtag`). */
export function answerOfrep(source, { scope, context, streams }) {
    const scoped = scopeFlags(source, scope);
    const flags = ofrepFlags(scoped);
    const reader = new ContextReader(context, 'frontend');
    let out = '{"flags":[';
    let high = 0;
    let low = 0;
    for (let i = 0; i < flags.length; i++) {
        const decision = decideScoped(source, scope.environment, scoped.flags[i], reader);
        const part = flags[i].evaluation(decision, reader);
        out += i === 0 ? part.json : `,${part.json}`;
        high = mixBlock(high, part.high);
        low = mixBlock(low, part.low);
    }
    const body = `${out}],"eventStreams":${streams.json}}`;
    return { body, etag: combinedEtag(body, mixBlock(high, streams.high), mixBlock(low, streams.low), flags.length + 1) };
}
/** One flag's evaluation JSON, or undefined when the token does not see a flag of that name. */
export function evaluateOne(source, scope, key, context) {
    const scoped = scopeFlags(source, scope);
    const index = scoped.byName.get(key);
    if (index === undefined)
        return undefined;
    const reader = new ContextReader(context, 'frontend');
    const decision = decideScoped(source, scope.environment, scoped.flags[index], reader);
    return ofrepFlags(scoped)[index].evaluation(decision, reader).json;
}
//# sourceMappingURL=evaluate.js.map