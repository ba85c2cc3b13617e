import { Type } from 'typebox';
import { CONSTRAINT_OPERATORS } from './normalise.js';
/**
 * A constraint as strategy and segment bodies accept it (Unleash's `constraintSchema`):
 * `contextName` and `operator` required, no other keys than the six.
 */
export const ConstraintInput = Type.Object({
    contextName: Type.String(),
    operator: Type.String({ enum: [...CONSTRAINT_OPERATORS] }),
    caseInsensitive: Type.Optional(Type.Boolean()),
    inverted: Type.Optional(Type.Boolean()),
    values: Type.Optional(Type.Array(Type.String())),
    value: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });
/**
 * A stored constraint as responses show it, in JSONB key order (value, values, inverted, operator,
 * contextName, caseInsensitive). Every key is optional here on purpose: the response serializer
 * writes required keys first, which would move `inverted` behind `contextName`.
 */
export const ConstraintOutput = Type.Object({
    value: Type.Optional(Type.String()),
    values: Type.Optional(Type.Array(Type.String())),
    inverted: Type.Optional(Type.Boolean()),
    operator: Type.Optional(Type.String()),
    contextName: Type.Optional(Type.String()),
    caseInsensitive: Type.Optional(Type.Boolean()),
});
//# sourceMappingURL=schemas.js.map