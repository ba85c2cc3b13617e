/** A flag type, with the expected lifetime the UI uses to mark flags potentially stale. */
export interface FeatureType {
  id: string;
  name: string;
  description: string;
  lifetimeDays: number | null;
}

/** The types with their lifetimes as set (`PUT /api/admin/feature-types/{id}/lifetime`); the store answers. */
export interface FeatureTypeReadModel {
  list(): readonly FeatureType[];
  /** Days before a flag of each type is potentially stale (null: never). */
  lifetimes(): ReadonlyMap<string, number | null>;
}

/** Unleash 8.2's flag types, in its order, with its default lifetimes. */
export const FEATURE_TYPES: readonly FeatureType[] = [
  { id: 'release', name: 'Release', description: 'Roll out new or incomplete features. Expected lifetime ~40 days', lifetimeDays: 40 },
  { id: 'experiment', name: 'Experiment', description: 'A/B and multivariate testing. Expected lifetime ~40 days', lifetimeDays: 40 },
  { id: 'operational', name: 'Operational', description: 'Transition between technical implementations with minimal risk. Expected lifetime: ~7 days', lifetimeDays: 7 },
  { id: 'kill-switch', name: 'Kill switch', description: 'Quickly disable certain functionalities or features. Expected lifetime: permanent', lifetimeDays: null },
  { id: 'permission', name: 'Permission', description: 'Control feature access based on user roles or entitlements. Expected lifetime: permanent', lifetimeDays: null },
  { id: 'sunset', name: 'Sunset', description: 'Coordinate the planned removal of an existing feature. Expected lifetime: ~90 days', lifetimeDays: 90 },
];
