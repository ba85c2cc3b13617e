import { Type } from 'typebox';
import { PlaygroundContext, ProjectsSelector } from '../playground/schemas.js';
const EnvironmentName = Type.String({ pattern: '^[a-zA-Z0-9~_.-]+$' });
export const BatchBody = Type.Object({
    environments: Type.Array(EnvironmentName, { minItems: 1 }),
    projects: Type.Optional(ProjectsSelector),
    contexts: Type.Array(PlaygroundContext, { description: 'Evaluated as given: no comma expansion, no cleaning' }),
}, { additionalProperties: true });
export const NdjsonContexts = Type.Unsafe({
    description: 'NDJSON: one context per line (each as `PlaygroundContext`); environments and projects in the query string. ' +
        'Read as a stream: a bad line (`contexts[i]…`) or the limit is a 400 when met before the first result is out, ' +
        'else the answer ends with an `error` member (JSON) or line (NDJSON).',
});
export const BatchQuery = Type.Object({
    environments: Type.Optional(Type.String({ description: 'NDJSON bodies only: comma-separated environments (required then)' })),
    projects: Type.Optional(Type.String({ description: 'NDJSON bodies only: comma-separated project ids, or "*" (default) for all' })),
});
const Decision = {
    enabled: Type.Boolean(),
    variant: Type.Union([Type.String(), Type.Null()], {
        description: 'The advanced playground\'s variant name ("disabled" when none); null when the flag does not exist',
    }),
};
export const BatchRecord = Type.Object({
    context: Type.Integer({ minimum: 0, description: 'Index of the context in the request' }),
    environment: Type.String(),
    flags: Type.Record(Type.String(), Type.Object(Decision)),
});
export const BatchResponse = Type.Object({
    flags: Type.Array(Type.String(), { description: 'Names of the evaluated flags, in playground order' }),
    results: Type.Array(BatchRecord, { description: 'One record per (context, environment), in context order then request order' }),
    error: Type.Optional(Type.Object({ id: Type.String(), name: Type.String(), message: Type.String() }, {
        additionalProperties: true, description: 'Only when the request failed after the answer had started (NDJSON input)',
    })),
});
export const ImpactParams = Type.Object({ id: Type.String() });
const PopulationAxis = Type.Union([
    Type.Object({ from: Type.Integer(), to: Type.Integer() }, { additionalProperties: false, description: 'Every integer from..to (inclusive), as strings' }),
    Type.Array(Type.String(), { minItems: 1 }),
]);
export const ImpactBody = Type.Object({
    contexts: Type.Optional(Type.Array(PlaygroundContext, { description: 'Explicit contexts, evaluated as given' })),
    context: Type.Optional(PlaygroundContext),
    population: Type.Optional(Type.Record(Type.String({ minLength: 1 }), PopulationAxis, {
        description: 'A synthetic population: every combination of the axes, first key varying slowest. ' +
            'Keys are context fields, or `properties.<name>`. Example: {"userId": {"from": 1, "to": 100000}, "properties.region": ["eu", "us"]}',
    })),
}, { additionalProperties: true, description: 'Exactly one of `contexts`, `context` (comma-separated values expanded as in the advanced playground) or `population`' });
const ImpactDecision = Type.Object(Decision);
export const ImpactExample = Type.Object({
    index: Type.Integer({ description: 'Position of the context in the request (or population)' }),
    context: Type.Object({}, { additionalProperties: true }),
    flag: Type.Optional(Type.String({ description: 'NDJSON lines only' })),
    before: ImpactDecision,
    after: ImpactDecision,
});
export const ImpactResponse = Type.Object({
    changeRequest: Type.Object({ id: Type.Integer(), environment: Type.String(), project: Type.String(), state: Type.String() }),
    contexts: Type.Integer({ description: 'Number of contexts evaluated' }),
    flags: Type.Array(Type.Object({
        name: Type.String(),
        before: Type.Object({ enabled: Type.Integer() }),
        after: Type.Object({ enabled: Type.Integer() }),
        turnedOn: Type.Integer(),
        turnedOff: Type.Integer(),
        variantChanged: Type.Integer({ description: 'On before and after, with another variant' }),
        examples: Type.Array(ImpactExample, { maxItems: 5, description: 'The first changed contexts, in context order' }),
    }), { description: 'Flags where something changes, plus flags the change request adds or archives' }),
});
//# sourceMappingURL=schemas.js.map