import { DEFAULT_MAX_STATEMENTS, inBatches } from '../../db/guard.js';
/**
 * Replaces (or inserts) each document by `_id`, in ordered commands of at most
 * `statementsPerCommand`, one after another: the guard bounds statements per command
 * (src/db/guard.ts: FerretDB wedges on one `update` command of 100 statements or more).
 */
async function upsertAll(collection, docs, statementsPerCommand) {
    await inBatches(docs, statementsPerCommand, (batch) => collection.bulkWrite(batch.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })), { ordered: true }));
}
export class MetricsStore {
    statementsPerCommand;
    buckets;
    lastSeen;
    applications;
    constructor(outbox, statementsPerCommand = DEFAULT_MAX_STATEMENTS) {
        this.statementsPerCommand = statementsPerCommand;
        // Metrics are not configuration: written without events and without a revision, so SDK
        // traffic never invalidates the caches the SDK routes read from.
        this.buckets = outbox.collection('client_metrics');
        this.lastSeen = outbox.collection('client_metrics_last_seen');
        this.applications = outbox.collection('client_applications');
    }
    /**
     * Indexes for MetricsService.refresh, which every instance runs every FLUSH_MS: documents
     * flushed since the last poll, buckets of the last hours. One command per index (FerretDB 1.24
     * fails a createIndexes that mixes existing and new ones).
     */
    async init() {
        await this.buckets.createIndex({ flushedAt: 1 }, { name: 'flushed_at' });
        await this.buckets.createIndex({ hour: 1 }, { name: 'hour' });
        await this.lastSeen.createIndex({ flushedAt: 1 }, { name: 'flushed_at' });
    }
    /**
     * Upserts documents in ordered commands of at most `statementsPerCommand` (DatabaseGuard.maxStatements):
     * one unordered command of every changed bucket was what wedged FerretDB under SDK traffic (a
     * flush of 100 flags × 2 environments is 200 statements; src/db/guard.ts has why).
     */
    async writeBuckets(docs) {
        await upsertAll(this.buckets, docs, this.statementsPerCommand);
    }
    async writeLastSeen(docs) {
        await upsertAll(this.lastSeen, docs, this.statementsPerCommand);
    }
    /**
     * Every instance's buckets from `hour` on, only those flushed from `changedSince` on when given
     * (MetricsService.refresh: a background poll, never on a request's path; FerretDB scans either way).
     */
    async bucketsSince(hour, changedSince) {
        return await this.buckets.find({ hour: { $gte: hour }, ...(changedSince ? { flushedAt: { $gte: changedSince } } : {}) }).toArray();
    }
    async lastSeenSince(changedSince) {
        return await this.lastSeen.find(changedSince ? { flushedAt: { $gte: changedSince } } : {}).toArray();
    }
    async upsertApplication(app) {
        const { createdAt, ...rest } = app;
        await this.applications.updateOne({ _id: app._id }, { $set: rest, $setOnInsert: { createdAt } }, { upsert: true });
    }
    async listApplications() {
        return await this.applications.find({}).sort({ _id: 1 }).toArray();
    }
}
//# sourceMappingURL=store.js.map