import { Type } from 'typebox';
import { inOrder } from '../../schemas/common.js';
import { DependencyBody, StrategyBody, VariantsBody } from '../flags/schemas.js';
import { UpsertSegmentBody } from '../segments/schemas.js';
import { FLAG_ACTIONS, SEGMENT_ACTIONS, STATES } from './store.js';
export const ProjectParams = Type.Object({ projectId: Type.String() });
export const EnvironmentParams = Type.Object({ projectId: Type.String(), environment: Type.String() });
/** Ids are strings here: anything but a decimal integer is simply an unknown change request (404). */
export const ChangeRequestParams = Type.Object({ projectId: Type.String(), id: Type.String() });
export const ChangeParams = Type.Object({ projectId: Type.String(), id: Type.String(), changeId: Type.String() });
export const PreviewParams = Type.Object({ id: Type.String() });
/**
 * One change: `{feature, action, payload}` for flag changes; segment changes name no feature (absent or null),
 * their payload's `id` is the segment (`{action: "updateSegment", payload: {id, name, constraints, …}}`).
 */
export const ChangeBody = Type.Object({
    // Unleash's UI sends `"feature": null` for segment changes; null and absent mean the same.
    feature: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    action: Type.Enum([...FLAG_ACTIONS, ...SEGMENT_ACTIONS], { type: 'string' }),
    payload: Type.Optional(Type.Unknown({ description: 'As the corresponding live endpoint takes it (see each action)' })),
}, { additionalProperties: false });
/** The POST body is one change or a non-empty list of them (validated per element in the handler). */
export const AddChangesBody = Type.Unknown({ description: 'One change {feature?, action, payload} or an array of them' });
export const StateBody = Type.Object({ state: Type.Enum([...STATES], { type: 'string' }) });
/**
 * Each action's payload schema: the live endpoint's body (docs/rules.md §1.4), with the target id where
 * the live endpoint has it in the path.
 */
export const PAYLOAD_SCHEMAS = {
    updateEnabled: Type.Object({ enabled: Type.Boolean() }),
    addStrategy: StrategyBody,
    updateStrategy: Type.Object({ id: Type.String(), ...StrategyBody.properties }),
    deleteStrategy: Type.Object({ id: Type.String() }),
    patchVariant: Type.Object({ variants: VariantsBody }),
    reorderStrategy: Type.Array(Type.Object({ id: Type.String(), sortOrder: Type.Number() })),
    archiveFeature: Type.Object({}, { additionalProperties: true }),
    addDependency: DependencyBody,
    deleteDependency: Type.Object({ feature: Type.String() }),
    updateSegment: Type.Object({ id: Type.Integer(), ...UpsertSegmentBody.properties }),
    deleteSegment: Type.Object({ id: Type.Integer(), name: Type.Optional(Type.String()) }),
};
const User = inOrder(Type.Object({ id: Type.Union([Type.Integer(), Type.Null()]), username: Type.String(), imageUrl: Type.String() }));
const Review = inOrder(Type.Object({ createdBy: User, createdAt: Type.String({ format: 'date-time' }) }));
const Payload = Type.Unknown({ description: 'As it was added (see each action)' });
/** A change request as the API shows it, in docs/rules.md §3.13 key order. */
export const ChangeRequestResponse = inOrder(Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    environment: Type.String(),
    project: Type.String(),
    minApprovals: Type.Integer(),
    state: Type.String({ enum: [...STATES] }),
    createdBy: User,
    createdAt: Type.String({ format: 'date-time' }),
    features: Type.Array(inOrder(Type.Object({
        name: Type.String(),
        changes: Type.Array(inOrder(Type.Object({
            id: Type.Integer(), action: Type.String(), payload: Payload, createdAt: Type.String({ format: 'date-time' }), createdBy: User,
        }))),
    }))),
    segments: Type.Array(inOrder(Type.Object({ id: Type.Integer(), action: Type.String(), name: Type.String(), payload: Payload }))),
    approvals: Type.Array(Review),
    rejections: Type.Array(Review),
    comments: Type.Array(Type.Unknown(), { description: 'Always empty' }),
}, { description: 'A change request (docs/rules.md §3.13)' }));
export const ChangeRequestListResponse = Type.Array(ChangeRequestResponse);
//# sourceMappingURL=schemas.js.map