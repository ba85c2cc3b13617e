import { toFlagConfig } from '../flags/store.js';
import { toSegmentConfig } from '../segments/store.js';
/** The evaluation snapshot read from the flags and segments stores: all projects, all environments. */
export function storeSnapshotSource(flags, segments) {
    return {
        async load() {
            const [flagData, segmentList] = await Promise.all([flags.snapshotSource(), segments.list()]);
            return { flags: flagData.map(toFlagConfig), segments: segmentList.map(toSegmentConfig) };
        },
    };
}
//# sourceMappingURL=source.js.map