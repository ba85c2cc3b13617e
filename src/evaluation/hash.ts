/**
 * Stickiness hashing (docs/rules.md §3.9). Unleash and its SDKs hash `groupId:id` with murmurhash3js's
 * x86.hash32, which reads UTF-16 code units and keeps only their low 8 bits; we call that very
 * package so every bucket matches what SDKs compute, including for non-ASCII ids.
 */
import murmurhash3js from 'murmurhash3js';

/** Seed for rollout / percentage buckets (modulus 100). */
export const ROLLOUT_SEED = 0;
/** Seed for variant buckets (modulus = total weight). */
export const VARIANT_SEED = 86028157;

const hash32 = murmurhash3js.x86.hash32;

/** `(murmur3_32(groupId + ":" + id, seed) mod modulus) + 1`, an integer in 1..modulus. */
export function normalizedHash(id: string, groupId: string, modulus: number, seed: number): number {
  return (hash32(groupId + ':' + id, seed) % modulus) + 1;
}

/** Bucket 1..100 used by the rollout strategies. */
export function rolloutBucket(id: string, groupId: string): number {
  return normalizedHash(id, groupId, 100, ROLLOUT_SEED);
}

/** Bucket 1..totalWeight used by variant selection. */
export function variantBucket(id: string, groupId: string, totalWeight: number): number {
  return normalizedHash(id, groupId, totalWeight, VARIANT_SEED);
}

/** `String(integer in [min, max])`: the fallback sticky id when a context has none. */
export function randomIntString(min: number, max: number): string {
  return String(min + Math.floor(Math.random() * (max - min + 1)));
}
