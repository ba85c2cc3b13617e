/** What the addons ask of other features (composition.ts answers). */
export interface AddonSources {
  /**
   * Creates a provider's tag type (Slack's `slack`, Datadog's `datadog`…) as the system user,
   * unless one of that name exists: Unleash does so when a configuration of the provider is created.
   */
  ensureTagType(tagType: { name: string; description: string; icon: string }): Promise<void>;
}
