/**
 * What other features may read of context fields (the context-fields store is the write model and
 * stays inside this folder): the field's shape and the look-up constraint validation asks.
 */

/** One allowed value; keys kept in the order they were sent (Unleash stores the list as json). */
export interface LegalValue {
  value: string;
  description?: string;
}

export interface ContextField {
  name: string;
  description: string | null;
  stickiness: boolean;
  sortOrder: number;
  legalValues: LegalValue[];
  createdAt: Date;
  /** Set for a project-scoped field. */
  project: string | null;
}

/** Context fields as they are now (from the configuration state); the context-fields store answers. */
export interface ContextFieldReadModel {
  get(name: string): Promise<ContextField | null>;
  /** Every field, project-scoped ones included, by name in code-unit order. */
  list(): Promise<ContextField[]>;
}
