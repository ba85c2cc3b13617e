import type { FlagData } from '../flags/read-model.js';

const DAY_MS = 86_400_000;

/** A `feature-environment-enabled` event of the project, as the DORA figures read it. */
export interface EnabledEvent {
  featureName: string;
  environment: string;
  createdAt: Date;
}

export interface DoraFeature {
  name: string;
  timeToProduction: number;
}

/**
 * Unleash 8.2's lead time (`GET /api/admin/projects/:projectId/dora`, its project-stats store):
 * for each release flag of the project, archived ones included, the first time it was turned on in
 * an environment of type `production` after its creation; whole days since its creation (floored),
 * by flag name. The project's average is to one decimal, 0.1 when that rounds to 0 (so a project
 * with any flag in production never reads 0), 0 with none.
 */
export function doraMetrics(
  flags: readonly FlagData[], enabled: readonly EnabledEvent[], environmentTypes: ReadonlyMap<string, string>,
): { features: DoraFeature[]; projectAverage: number } {
  const releases = new Map(flags.filter((f) => f.type === 'release').map((f) => [f.name, f.createdAt.getTime()]));
  const first = new Map<string, number>();
  for (const event of enabled) {
    const created = releases.get(event.featureName);
    const at = event.createdAt.getTime();
    if (created === undefined || at <= created || environmentTypes.get(event.environment) !== 'production') continue;
    const seen = first.get(event.featureName);
    if (seen === undefined || at < seen) first.set(event.featureName, at);
  }
  const features = [...first].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, at]) => ({ name, timeToProduction: Math.floor((at - releases.get(name)!) / DAY_MS) }));
  if (features.length === 0) return { features, projectAverage: 0 };
  const average = features.reduce((sum, f) => sum + f.timeToProduction, 0) / features.length;
  return { features, projectAverage: Number(average.toFixed(1)) || 0.1 };
}
