import { Type } from 'typebox';
const ProjectSchema = Type.Object({
    id: Type.String(),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    health: Type.Number(),
    featureCount: Type.Number(),
    memberCount: Type.Number(),
    defaultStickiness: Type.String(),
    mode: Type.String(),
    favorite: Type.Boolean(),
    archivedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const ProjectResponse = ProjectSchema;
export const ProjectListResponse = Type.Object({ version: Type.Number(), projects: Type.Array(ProjectSchema) });
export const CreateProjectBody = Type.Object({
    id: Type.String(),
    name: Type.String(),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
//# sourceMappingURL=schemas.js.map