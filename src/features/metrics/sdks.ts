import semver from 'semver';

/**
 * The oldest SDK versions Unleash 8.2 does not call outdated, by SDK name (the part of
 * `sdkVersion` before `:`); both the older `unleash-client-*` names and the renamed `*-sdk` ones.
 */
const MINIMUM_VERSIONS: ReadonlyMap<string, string> = new Map([
  ['unleash-client-node', '5.3.2'],
  ['unleash-client-nextjs', '1.6.2'],
  ['unleash-client-java', '9.2.0'],
  ['unleash-client-go', '4.1.0'],
  ['unleash-client-python', '5.11.0'],
  ['unleash-client-ruby', '5.0.0'],
  ['unleash-client-dotnet', '4.1.3'],
  ['unleash-client-php', '2.3.0'],
  ['unleash-node-sdk', '6.6.0'],
  ['unleash-nextjs-sdk', '1.6.2'],
  ['unleash-java-sdk', '11.0.2'],
  ['unleash-go-sdk', '5.0.3'],
  ['unleash-python-sdk', '6.3.0'],
  ['unleash-ruby-sdk', '6.3.1'],
  ['unleash-dotnet-sdk', '5.3.0'],
  ['unleash-php-sdk', '2.9.1'],
]);

/** A known SDK whose version is valid semver and below its minimum; anything else is not outdated. */
export function isOutdatedSdk(sdkVersion: string | null): boolean {
  if (!sdkVersion) return false;
  const [name = '', version = ''] = sdkVersion.split(':');
  const minimum = MINIMUM_VERSIONS.get(name);
  return minimum !== undefined && semver.valid(version) !== null && semver.lt(version, minimum);
}
