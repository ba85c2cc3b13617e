import type { FlagConfig, Snapshot } from '../../evaluation/index.js';
import { toFlagConfig, type LiveFlag, type FlagReadModel } from '../flags/read-model.js';
import { toSegmentConfig, type SegmentReadModel } from '../segments/read-model.js';
import type { SnapshotSource } from './snapshot.js';

/**
 * Each flag's evaluation form, made once per flag revision: the store hands out the same object
 * for a flag until it changes, so the snapshot of a new revision differs from the previous one
 * exactly in the objects of the flags written (SnapshotCache compiles only those).
 */
const configs = new WeakMap<LiveFlag, FlagConfig>();

function configOf(flag: LiveFlag): FlagConfig {
  let config = configs.get(flag);
  if (!config) {
    config = toFlagConfig(flag);
    configs.set(flag, config);
  }
  return config;
}

/** The evaluation snapshot read from the flags' and segments' read models: all projects, all environments. */
export function storeSnapshotSource(flags: FlagReadModel, segments: SegmentReadModel): SnapshotSource {
  return {
    async load(): Promise<Snapshot> {
      const [flagData, segmentList] = await Promise.all([flags.snapshotSource(), segments.list()]);
      return { flags: flagData.map(configOf), segments: segmentList.map(toSegmentConfig) };
    },
  };
}
