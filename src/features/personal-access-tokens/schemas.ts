import { Type, type Static } from 'typebox';
import { inOrder, NullableString } from '../../schemas/common.js';

/** Unleash's createPatSchema: both required; other properties are accepted and ignored (measured). */
export const CreatePatBody = Type.Object({
  description: Type.String({ description: "Unique among the user's tokens; not empty" }),
  expiresAt: Type.String({ format: 'date-time', description: 'In the future' }),
});

const patProperties = {
  id: Type.Integer({ minimum: 1, description: 'Sequential across all users' }),
  description: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  userId: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  seenAt: NullableString({ description: 'Last used to authenticate (updated at most once a minute); null before' }),
};

/** A token as listed: never its secret. */
export const PatSchema = inOrder(Type.Object(patProperties));

/** The creation answer: the only time the secret is shown. */
export const CreatedPatSchema = inOrder(Type.Object({
  ...patProperties,
  secret: Type.String({ description: '`user:` and 56 hex digits; shown only here, stored only as a hash' }),
}));

export const PatListSchema = Type.Object({ pats: Type.Array(PatSchema) });

export const PatParams = Type.Object({ id: Type.Integer({ description: 'A personal access token id' }) });

export type PatView = Static<typeof PatSchema>;
export type CreatedPatView = Static<typeof CreatedPatSchema>;
