import { Type } from 'typebox';

const base = {
  name: Type.String(),
  type: Type.String(),
  sortOrder: Type.Number(),
  enabled: Type.Boolean(),
  protected: Type.Boolean(),
  requiredApprovals: Type.Null(),
};

export const EnvironmentSchema = Type.Object({
  ...base,
  projectCount: Type.Number(),
  apiTokenCount: Type.Number(),
  enabledToggleCount: Type.Number(),
});

export const EnvironmentListSchema = Type.Object({ version: Type.Number(), environments: Type.Array(EnvironmentSchema) });

export const ProjectEnvironmentListSchema = Type.Object({
  version: Type.Number(),
  environments: Type.Array(Type.Object({
    ...base,
    projectApiTokenCount: Type.Number({ description: 'Tokens of this environment that read the project (those for every project too)' }),
    projectEnabledToggleCount: Type.Number({ description: 'The project\'s flags on in this environment' }),
    visible: Type.Boolean({ description: 'Whether the environment is connected to the project' }),
  })),
});

export const EnvironmentNameParams = Type.Object({ name: Type.String() });

export const CreateEnvironmentBody = Type.Object(
  {
    name: Type.String({ pattern: '^[a-zA-Z0-9~_.-]+$', maxLength: 100 }),
    type: Type.String({ minLength: 1 }),
    sortOrder: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);
