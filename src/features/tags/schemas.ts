import { Type } from 'typebox';

export const TagSchema = Type.Object({ type: Type.String(), value: Type.String() });
export const CreateTagBody = Type.Object({ type: Type.Optional(Type.String()), value: Type.String() });
export const TagCreatedResponse = Type.Object({ version: Type.Number(), tag: Type.Object({ type: Type.String(), value: Type.String() }) });
export const TagListResponse = Type.Object({ version: Type.Number(), tags: Type.Array(TagSchema) });

export const TagTypeSchema = Type.Object({
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  icon: Type.Union([Type.String(), Type.Null()]),
  color: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
/** A created tag type: the keys the request gave, as Unleash echoes them. */
export const TagTypeCreatedSchema = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  icon: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  color: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export const TagTypeListResponse = Type.Object({ version: Type.Number(), tagTypes: Type.Array(TagTypeSchema) });
/**
 * A colour as Unleash 8.2 takes it: six hex digits ("red" and "#FFF" are refused with 400). One type
 * list rather than anyOf, so a refusal has Unleash's one detail, not one per branch.
 */
export const TagTypeColor = Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], pattern: '^#[0-9A-Fa-f]{6}$' }));
export const CreateTagTypeBody = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  icon: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  color: TagTypeColor,
});
