import type { Snapshot } from '../../evaluation/index.js';
import { toFlagConfig, type FlagStore } from '../flags/store.js';
import { toSegmentConfig, type SegmentStore } from '../segments/store.js';
import type { SnapshotSource } from './snapshot.js';

/** The evaluation snapshot read from the flags and segments stores: all projects, all environments. */
export function storeSnapshotSource(flags: FlagStore, segments: SegmentStore): SnapshotSource {
  return {
    async load(): Promise<Snapshot> {
      const [flagData, segmentList] = await Promise.all([flags.snapshotSource(), segments.list()]);
      return { flags: flagData.map(toFlagConfig), segments: segmentList.map(toSegmentConfig) };
    },
  };
}
