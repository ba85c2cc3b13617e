/** Unleash 8.2's flag types, in its order, with the expected lifetimes the UI uses to mark flags potentially stale. */
export const FEATURE_TYPES: ReadonlyArray<{ id: string; name: string; description: string; lifetimeDays: number | null }> = [
  { id: 'release', name: 'Release', description: 'Roll out new or incomplete features. Expected lifetime ~40 days', lifetimeDays: 40 },
  { id: 'experiment', name: 'Experiment', description: 'A/B and multivariate testing. Expected lifetime ~40 days', lifetimeDays: 40 },
  { id: 'operational', name: 'Operational', description: 'Transition between technical implementations with minimal risk. Expected lifetime: ~7 days', lifetimeDays: 7 },
  { id: 'kill-switch', name: 'Kill switch', description: 'Quickly disable certain functionalities or features. Expected lifetime: permanent', lifetimeDays: null },
  { id: 'permission', name: 'Permission', description: 'Control feature access based on user roles or entitlements. Expected lifetime: permanent', lifetimeDays: null },
  { id: 'sunset', name: 'Sunset', description: 'Coordinate the planned removal of an existing feature. Expected lifetime: ~90 days', lifetimeDays: 90 },
];
