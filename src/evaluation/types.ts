/**
 * Data shapes of the evaluation engine.
 *
 * The *Config types are the stored configuration exactly as the admin API keeps it (plain JSON).
 * The Playground* types are the result objects of docs/rules.md §3.8–§3.12; their key order is Unleash's and
 * the fast serializer (serialize.ts) reproduces it byte for byte.
 */

export interface Snapshot {
  flags: FlagConfig[];
  segments: SegmentConfig[];
}

export interface FlagConfig {
  name: string;
  project: string;
  /** ISO timestamp; orders non-numeric flag names newest first (docs/rules.md §3.3). */
  createdAt: string;
  archived?: boolean;
  /** An environment missing here means: flag off there, no strategies. */
  environments: Record<string, FlagEnvironmentConfig>;
  /** 0 or 1 entries in admin data; the client specification suite uses more. */
  dependencies: DependencyConfig[];
}

export interface FlagEnvironmentConfig {
  enabled: boolean;
  strategies: StrategyConfig[];
  variants: VariantConfig[];
}

export interface StrategyConfig {
  id: string;
  name: string;
  title?: string | null;
  disabled?: boolean | null;
  sortOrder?: number;
  parameters: Record<string, string>;
  constraints: ConstraintConfig[];
  variants?: StrategyVariantConfig[];
  segments?: number[];
}

/** Stored key order is the order listed here (Postgres JSONB order, docs/rules.md §3.7). */
export interface ConstraintConfig {
  value?: string;
  values?: string[];
  inverted?: boolean;
  operator: string;
  contextName: string;
  caseInsensitive?: boolean;
}

export interface VariantPayload {
  type: string;
  value: string;
}

export interface VariantOverride {
  contextName: string;
  values: string[];
}

export interface VariantConfig {
  name: string;
  weight: number;
  weightType?: 'variable' | 'fix';
  stickiness?: string;
  payload?: VariantPayload;
  overrides?: VariantOverride[];
}

export interface StrategyVariantConfig {
  name: string;
  weight: number;
  weightType: 'variable' | 'fix';
  stickiness: string;
  payload?: VariantPayload;
}

export interface DependencyConfig {
  feature: string;
  enabled?: boolean;
  variants?: string[];
}

export interface SegmentConfig {
  id: number;
  name: string;
  constraints: ConstraintConfig[];
}

/** Any JSON object; fields are resolved per docs/rules.md §3.6, non-string values count as missing. */
export type EvaluationContext = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Result objects (docs/rules.md §3.8–§3.12). Treat them as read-only: static parts are shared between
// evaluations.

export type StrategyOutcome = true | false | 'unknown';

export interface StrategyVariantResult {
  name: string;
  enabled: true;
  payload?: VariantPayload;
}

export type PlaygroundStrategyResultStatus =
  | { enabled: 'unknown'; evaluationStatus: 'unevaluated' }
  | { enabled: 'unknown' | false; evaluationStatus: 'incomplete' }
  | {
    enabled: boolean;
    evaluationStatus: 'complete';
    variant?: StrategyVariantResult;
    variants?: unknown[];
  };

export interface PlaygroundConstraintResult {
  [key: string]: unknown;
  result: boolean;
}

export interface PlaygroundSegmentResult {
  name: string;
  id: number;
  result: boolean;
  constraints: PlaygroundConstraintResult[];
}

export interface PlaygroundStrategyResult {
  name: string;
  id: string;
  title?: string;
  disabled: boolean;
  parameters: Record<string, string>;
  result: PlaygroundStrategyResultStatus;
  constraints: PlaygroundConstraintResult[];
  segments: PlaygroundSegmentResult[];
  links: { edit: string };
}

/** The flag-level `variant` in one of the four shapes of docs/rules.md §3.10 step 5. */
export type PlaygroundVariant = Record<string, unknown> & { name: string; enabled: boolean };

export interface PlaygroundFlagResult {
  isEnabled: boolean;
  isEnabledInCurrentEnvironment: boolean;
  hasUnsatisfiedDependency: boolean;
  variant: PlaygroundVariant;
  variants: unknown[];
  name: string;
  projectId: string;
  strategies: { result: StrategyOutcome; data: PlaygroundStrategyResult[] };
}

export interface AdvancedPlaygroundEntry {
  isEnabled: boolean;
  isEnabledInCurrentEnvironment: boolean;
  hasUnsatisfiedDependency: boolean;
  variant: PlaygroundVariant;
  context: unknown;
  variants: unknown[];
  name: string;
  environment: string;
  projectId: string;
  strategies: { result: StrategyOutcome; data: PlaygroundStrategyResult[] };
}

/** What an SDK's getVariant returns (client specification shape). */
export interface SdkVariant {
  name: string;
  payload?: VariantPayload;
  enabled: boolean;
  feature_enabled: boolean;
}
