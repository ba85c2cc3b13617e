import { Type } from 'typebox';
import { inOrder, NullableString } from '../../schemas/common.js';

export const CreateApiTokenBody = Type.Object(
  {
    tokenName: Type.String({ minLength: 1 }),
    type: Type.String({ description: 'client, backend or frontend (case-insensitive)' }),
    environment: Type.Optional(Type.String({ minLength: 1 })),
    projects: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    project: Type.Optional(Type.String({ minLength: 1 })),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const ApiTokenSchema = Type.Object({
  tokenName: Type.String(),
  environment: Type.String(),
  projects: Type.Array(Type.String()),
  secret: Type.String({ description: 'Shown in full only in the creation response' }),
  type: Type.String(),
  alias: Type.Union([Type.String(), Type.Null()]),
  project: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  secure: Type.Boolean(),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
});

export const ApiTokenListSchema = Type.Object({ tokens: Type.Array(ApiTokenSchema) });

export const TokenParams = Type.Object({ token: Type.String() });

/** Unleash 8.2's pattern for a token type in a create body (measured: `admin` and `bogus` fail it). */
const TOKEN_TYPE = '^([Cc][Ll][Ii][Ee][Nn][Tt]|[Bb][Aa][Cc][Kk][Ee][Nn][Dd]|[Ff][Rr][Oo][Nn][Tt][Ee][Nn][Dd])$';

/** Unleash's createProjectApiTokenSchema: other keys (`projects` included) are ignored. */
export const CreateProjectApiTokenBody = Type.Object({
  tokenName: Type.String(),
  type: Type.String({ pattern: TOKEN_TYPE, description: 'client, backend or frontend (any case)' }),
  environment: Type.Optional(Type.String({ description: 'Default development' })),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
}, { additionalProperties: true });

/** A token as Unleash 8.2 lists it by name or by project (keys in its order; `secret` masked, `seenAt` null). */
export const ListedTokenSchema = inOrder(Type.Object({
  secret: Type.String({ description: 'Masked: Vane keeps only its hash' }),
  tokenName: Type.String(),
  type: Type.String(),
  project: Type.String(),
  projects: Type.Array(Type.String()),
  environment: Type.String(),
  expiresAt: NullableString(),
  createdAt: Type.String({ format: 'date-time' }),
  alias: NullableString(),
  seenAt: Type.Null({ description: 'Always null: Vane does not record a token\'s use' }),
  secure: Type.Boolean(),
}));

export const ListedTokensSchema = Type.Object({ tokens: Type.Array(ListedTokenSchema) });

export const TokenNameParams = Type.Object({ name: Type.String() });
export const ProjectParams = Type.Object({ projectId: Type.String() });
export const ProjectTokenParams = Type.Object({ projectId: Type.String(), token: Type.String() });

/** Unleash's updateApiTokenSchema; other keys are ignored (measured: `extra: 1` → 200). */
export const UpdateApiTokenBody = Type.Object({ expiresAt: Type.String({ format: 'date-time' }) }, { additionalProperties: true });
