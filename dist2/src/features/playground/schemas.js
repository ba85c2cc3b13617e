import { Type } from 'typebox';
import { SDK_CONTEXT_FIELDS } from '../../schemas/sdk-context.js';
/** `sdkContextSchema` (docs/rules.md §3.1): declared fields are strings (coerced), anything else is free-form. */
export const PlaygroundContext = Type.Object({ appName: Type.String({ minLength: 1 }), ...SDK_CONTEXT_FIELDS }, { additionalProperties: true, description: 'Evaluation context; comma-separated values expand into combinations (advanced only)' });
/** An array of project ids, or "*" for all (a real `oneOf`, so a bad string reports both branches). */
export const ProjectsSelector = Type.Unsafe({
    oneOf: [
        { type: 'array', items: { type: 'string' } },
        { type: 'string', enum: ['*'] },
    ],
    description: 'Project ids, or "*" (or absent) for all projects',
});
export const DeprecatedPlaygroundBody = Type.Object({ environment: Type.String(), projects: Type.Optional(ProjectsSelector), context: PlaygroundContext }, { additionalProperties: true });
export const AdvancedPlaygroundBody = Type.Object({
    environments: Type.Array(Type.String({ pattern: '^[a-zA-Z0-9~_.-]+$' }), { minItems: 1 }),
    projects: Type.Optional(ProjectsSelector),
    context: PlaygroundContext,
}, { additionalProperties: true });
export const ChangeRequestPlaygroundBody = Type.Object({ context: PlaygroundContext }, { additionalProperties: true });
const StrategyResult = Type.Object({
    name: Type.String(),
    id: Type.String(),
    title: Type.Optional(Type.String()),
    disabled: Type.Union([Type.Boolean(), Type.Null()]),
    parameters: Type.Record(Type.String(), Type.String()),
    result: Type.Unknown({ description: 'true/false, or {enabled, evaluationStatus} when it cannot be fully evaluated' }),
    constraints: Type.Array(Type.Object({ result: Type.Boolean() }, { additionalProperties: true })),
    segments: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), result: Type.Boolean() }, { additionalProperties: true })),
    links: Type.Object({ edit: Type.String() }),
});
const EvaluatedFlag = {
    isEnabled: Type.Boolean(),
    isEnabledInCurrentEnvironment: Type.Boolean(),
    hasUnsatisfiedDependency: Type.Boolean(),
    variant: Type.Union([Type.Object({ name: Type.String(), enabled: Type.Boolean() }, { additionalProperties: true }), Type.Null()]),
    variants: Type.Array(Type.Object({}, { additionalProperties: true })),
    name: Type.String(),
    projectId: Type.String(),
    strategies: Type.Object({ result: Type.Unknown(), data: Type.Array(StrategyResult) }),
};
export const DeprecatedPlaygroundResponse = Type.Object({
    input: Type.Object({}, { additionalProperties: true }),
    features: Type.Array(Type.Object(EvaluatedFlag)),
});
export const AdvancedPlaygroundResponse = Type.Object({
    features: Type.Array(Type.Object({
        name: Type.String(),
        projectId: Type.String(),
        environments: Type.Record(Type.String(), Type.Array(Type.Object({
            ...EvaluatedFlag,
            context: Type.Object({}, { additionalProperties: true }),
            environment: Type.String(),
        }))),
    })),
    input: Type.Object({}, { additionalProperties: true }),
    warnings: Type.Optional(Type.Object({ invalidContextProperties: Type.Array(Type.String()) })),
});
//# sourceMappingURL=schemas.js.map