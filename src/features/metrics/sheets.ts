import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { Binary } from 'mongodb';
import type { LastSeenDocument, MetricsBucketDocument } from './store.js';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/**
 * A sheet: every bucket one instance counted in one hour (or every last-seen time it recorded:
 * the `seen` sheet), in one document, its entries as deflated JSON.
 *
 * Why one document, not one per flag: FerretDB applies each statement of a write as a query and
 * a write of its own, about 10 ms each on its one SQLite writer. At 2 000 flags reported in two
 * environments a flush was 4 000 upserts; in the two-instance soak the metrics' writes and polls
 * held the database 94 of the 215 seconds it was busy in a minute, and admin writes waited 63 s
 * in all for the write slot behind them. A sheet is one replace per hour written, ~20 bytes an
 * entry deflated.
 */
export interface SheetDocument {
  /** `instance \0 hour-ms`, or `instance \0 seen`. */
  _id: string;
  instance: string;
  /** The hour's start; null for the seen sheet. */
  hour: Date | null;
  /** This instance's flush number that wrote it: a reader fetches a sheet again when its head lists a newer one. */
  version: number;
  flushedAt: Date;
  /** The entries' JSON, deflated (BucketEntry[] or SeenEntry[]). */
  body: Binary;
}

/** What an instance has written: its sheets and their versions (one small document per instance, what a poll scans). */
export interface HeadDocument {
  /** The instance. */
  _id: string;
  flushedAt: Date;
  sheets: SheetRef[];
}

export interface SheetRef {
  id: string;
  /** The hour's start in ms; null for the seen sheet. */
  hour: number | null;
  version: number;
}

/** flag, environment, the application of the key, applications, yes, no, variants, lastSeenAt ms, lastStart ms. */
type BucketEntry = [string, string, string, string[], number, number, Record<string, number> | 0, number, number];
/** flag, environment, lastSeenAt ms. */
type SeenEntry = [string, string, number];

function sheetId(instance: string, hour: number | null): string {
  return `${instance}\0${hour ?? 'seen'}`;
}

/** The key of a bucket (MetricsBucketDocument._id): one instance, flag, environment, hour and reporting application. */
export function bucketKey(instance: string, flag: string, environment: string, hourMs: number, appName: string): string {
  return `${instance}\0${flag}\0${environment}\0${hourMs}\0${appName}`;
}

/** The key of a last-seen time (LastSeenDocument._id): one instance, flag and environment. */
export function seenKey(instance: string, flag: string, environment: string): string {
  return `${instance}\0${flag}\0${environment}`;
}

// Deflated off the main thread (zlib's thread pool): a sheet of 2 000 flags in two environments is ~1 MB of JSON.
async function packed(entries: unknown[]): Promise<Binary> {
  return new Binary(await deflate(Buffer.from(JSON.stringify(entries), 'utf8')));
}

async function unpacked<T>(body: Binary): Promise<T[]> {
  return JSON.parse((await inflate(body.buffer)).toString('utf8')) as T[];
}

export async function bucketSheet(instance: string, hourMs: number, version: number, flushedAt: Date, buckets: readonly MetricsBucketDocument[]): Promise<SheetDocument> {
  const entries = buckets.map((b): BucketEntry => [
    b.flag, b.environment, b._id.slice(b._id.lastIndexOf('\0') + 1), b.appNames, b.yes, b.no,
    Object.keys(b.variants).length ? b.variants : 0, b.lastSeenAt.getTime(), b.lastStart?.getTime() ?? 0,
  ]);
  return { _id: sheetId(instance, hourMs), instance, hour: new Date(hourMs), version, flushedAt, body: await packed(entries) };
}

export async function seenSheet(instance: string, version: number, flushedAt: Date, seen: readonly LastSeenDocument[]): Promise<SheetDocument> {
  const entries = seen.map((s): SeenEntry => [s.flag, s.environment, s.lastSeenAt.getTime()]);
  return { _id: sheetId(instance, null), instance, hour: null, version, flushedAt, body: await packed(entries) };
}

/** A sheet's entries: buckets for an hour's sheet, last-seen times for the seen sheet. */
export async function readSheet(doc: SheetDocument): Promise<{ buckets: MetricsBucketDocument[]; seen: LastSeenDocument[] }> {
  if (doc.hour === null) {
    const seen = (await unpacked<SeenEntry>(doc.body)).map(([flag, environment, at]): LastSeenDocument => ({
      _id: seenKey(doc.instance, flag, environment), flag, environment, lastSeenAt: new Date(at),
    }));
    return { buckets: [], seen };
  }
  const hourMs = doc.hour.getTime();
  const buckets = (await unpacked<BucketEntry>(doc.body)).map(([flag, environment, app, appNames, yes, no, variants, seenAt, start]): MetricsBucketDocument => ({
    _id: bucketKey(doc.instance, flag, environment, hourMs, app), instance: doc.instance, flag, environment, hour: doc.hour!,
    yes, no, variants: variants === 0 ? {} : variants, appNames, lastSeenAt: new Date(seenAt), ...(start ? { lastStart: new Date(start) } : {}),
  }));
  return { buckets, seen: [] };
}
