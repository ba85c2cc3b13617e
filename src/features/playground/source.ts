import type { Snapshot } from '../../evaluation/index.js';
import { toFlagConfig, type FlagReadModel } from '../flags/read-model.js';
import { toSegmentConfig, type SegmentReadModel } from '../segments/read-model.js';
import type { SnapshotSource } from './snapshot.js';

/** The evaluation snapshot read from the flags' and segments' read models: all projects, all environments. */
export function storeSnapshotSource(flags: FlagReadModel, segments: SegmentReadModel): SnapshotSource {
  return {
    async load(): Promise<Snapshot> {
      const [flagData, segmentList] = await Promise.all([flags.snapshotSource(), segments.list()]);
      return { flags: flagData.map(toFlagConfig), segments: segmentList.map(toSegmentConfig) };
    },
  };
}
