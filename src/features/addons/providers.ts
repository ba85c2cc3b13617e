/**
 * The addon providers of Unleash 8.2 OSS as `GET /api/admin/addons` lists them (recorded from the
 * reference; test/fixtures/addons/reference.json holds the whole answer, and the test compares).
 * Their parameters decide what a configuration must carry and which values are masked; a
 * `deprecated` provider cannot be created. Vane delivers only `webhook` (docs/rules.md §11).
 */
import type { ProviderDefinition } from './schemas.js';

export const PROVIDERS: readonly ProviderDefinition[] = [
  {
    name: 'webhook',
    displayName: 'Webhook',
    description: 'A Webhook is a generic way to post messages from Unleash to third party services.',
    documentationUrl: 'https://docs.getunleash.io/integrate/webhook',
    howTo: 'The Webhook Addon introduces a generic way to post messages from Unleash to third party services. '
      + 'Unleash allows you to define a webhook which listens for changes in Unleash and posts them to a '
      + 'third party services.',
    parameters: [
      {
        name: 'url',
        displayName: 'Webhook URL',
        description: '(Required) Unleash will perform a HTTP Post to the specified URL (one retry if first attempt fails)',
        type: 'url',
        required: true,
        sensitive: true,
      },
      {
        name: 'contentType',
        displayName: 'Content-Type',
        placeholder: 'application/json',
        description: '(Optional) The Content-Type header to use. Defaults to "application/json".',
        type: 'text',
        required: false,
        sensitive: false,
      },
      {
        name: 'authorization',
        displayName: 'Authorization',
        placeholder: '',
        description: '(Optional) The Authorization header to use. Not used if left blank.',
        type: 'text',
        required: false,
        sensitive: true,
      },
      {
        name: 'customHeaders',
        displayName: 'Extra HTTP Headers',
        placeholder: '{\n"ISTIO_USER_KEY": "hunter2",\n"SOME_OTHER_CUSTOM_HTTP_HEADER": "SOMEVALUE"\n}',
        description: '(Optional) Used to add extra HTTP Headers to the request the plugin fires off. This must be a '
          + 'valid json object of key-value pairs where both the key and the value are strings',
        required: false,
        sensitive: true,
        type: 'textfield',
      },
      {
        name: 'bodyTemplate',
        displayName: 'Body template',
        placeholder: '{\n  "event": "{{event.type}}",\n  "createdBy": "{{event.createdBy}}",\n  "featureToggle": '
          + '"{{event.data.name}}",\n  "timestamp": "{{event.data.createdAt}}",\n  "json": {{{eventJson}}}\n}',
        description: '(Optional) You may format the body using a mustache template. If you don\'t specify anything, the '
          + 'format will be similar to the [events format](https://docs.getunleash.io/concepts/events). You '
          + 'can use `{{{eventJson}}}` to include the entire serialized event, or `"{{eventMarkdown}}"` for '
          + 'the formatted description.',
        type: 'textfield',
        required: false,
        sensitive: false,
      },
    ],
    events: [
      'feature-created', 'feature-updated', 'feature-archived', 'feature-revived', 'feature-stale-on', 'feature-stale-off',
      'feature-completed', 'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-remove',
      'feature-strategy-update', 'feature-strategy-add', 'feature-metadata-updated', 'feature-variants-updated',
      'feature-project-change', 'feature-tagged', 'feature-untagged', 'change-request-created', 'change-request-discarded',
      'change-added', 'change-discarded', 'change-request-approved', 'change-request-approval-added', 'change-request-cancelled',
      'change-request-sent-to-review', 'change-request-applied', 'change-request-scheduled',
      'change-request-scheduled-application-success', 'change-request-scheduled-application-failure',
      'change-request-schedule-suspended', 'feature-potentially-stale-on', 'release-plan-progressions-paused',
      'release-plan-progressions-resumed',
    ],
  },
  {
    name: 'slack',
    displayName: 'Slack',
    description: 'Allows Unleash to post updates to Slack.',
    documentationUrl: 'https://docs.getunleash.io/integrate/slack-app',
    deprecated: 'This integration is deprecated. Please try the new App for Slack integration instead.',
    alerts: [
      {
        type: 'warning',
        text: 'This integration is deprecated. Please try the new App for Slack integration instead.',
        link: {
          url: 'https://docs.getunleash.io/integrate/slack-app',
          title: 'Read these instructions to migrate to new Slack App smoothly.',
        },
      },
    ],
    parameters: [
      {
        name: 'url',
        displayName: 'Slack webhook URL',
        description: '(Required)',
        type: 'url',
        required: true,
        sensitive: true,
      },
      {
        name: 'username',
        displayName: 'Username',
        placeholder: 'Unleash',
        description: 'The username to use when posting messages to slack. Defaults to "Unleash".',
        type: 'text',
        required: false,
        sensitive: false,
      },
      {
        name: 'emojiIcon',
        displayName: 'Emoji Icon',
        placeholder: ':unleash:',
        description: 'The emoji_icon to use when posting messages to slack. Defaults to ":unleash:".',
        type: 'text',
        required: false,
        sensitive: false,
      },
      {
        name: 'defaultChannel',
        displayName: 'Default channel',
        description: '(Required) Default channel to post updates to if not specified in the slack-tag',
        type: 'text',
        required: true,
        sensitive: false,
      },
      {
        name: 'customHeaders',
        displayName: 'Extra HTTP Headers',
        placeholder: '{\n  "ISTIO_USER_KEY": "hunter2",\n  "SOME_OTHER_CUSTOM_HTTP_HEADER": "SOMEVALUE"\n}',
        description: '(Optional) Used to add extra HTTP Headers to the request the plugin fires off. This must be a '
          + 'valid json object of key-value pairs where both the key and the value are strings',
        required: false,
        sensitive: true,
        type: 'textfield',
      },
    ],
    events: [
      'feature-created', 'feature-updated', 'feature-archived', 'feature-revived', 'feature-stale-on', 'feature-stale-off',
      'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-remove', 'feature-strategy-update',
      'feature-strategy-add', 'feature-metadata-updated', 'feature-variants-updated', 'feature-project-change',
      'feature-potentially-stale-on', 'release-plan-progressions-paused', 'release-plan-progressions-resumed',
    ],
    tagTypes: [
      {
        name: 'slack',
        description: 'Slack tag used by the slack-addon to specify the slack channel.',
        icon: 'S',
      },
    ],
  },
  {
    name: 'slack-app',
    displayName: 'App for Slack',
    description: 'The Unleash App for Slack posts messages to the selected channels in your Slack workspace.',
    howTo: 'Below you can specify which Slack channels receive event notifications. The configuration '
      + 'settings allow you to choose the events and whether you want to filter them by projects and '
      + 'environments.\n\nYou can also select which channels to post to by configuring your feature flags '
      + 'with “slack” tags. For example, if you’d like the bot to post messages to the #general channel, '
      + 'you can configure your feature flag with the “slack:general” tag.\n\nThe Unleash App for Slack '
      + 'bot has access to public channels by default. If you want the bot to post messages to private '
      + 'channels, you’ll need to invite it to those channels.',
    documentationUrl: 'https://docs.getunleash.io/integrate/slack-app',
    installation: {
      url: 'https://app-for-slack.getunleash.io/install',
      title: 'App for Slack installation',
      helpText: 'After installing the Unleash App for Slack in your Slack workspace, paste the access token into '
        + 'the appropriate field below in order to configure this integration.',
    },
    parameters: [
      {
        name: 'accessToken',
        displayName: 'Access token',
        description: '(Required)',
        type: 'text',
        required: true,
        sensitive: true,
      },
      {
        name: 'defaultChannels',
        displayName: 'Channels',
        description: 'A comma-separated list of channels to post the configured events to. These channels are always '
          + 'notified, regardless of the event type or the presence of a slack tag.',
        type: 'text',
        required: false,
        sensitive: false,
      },
    ],
    events: [
      'addon-config-created', 'addon-config-deleted', 'addon-config-updated', 'api-token-created', 'api-token-deleted', 'change-added',
      'change-discarded', 'change-edited', 'change-request-applied', 'change-request-approval-added', 'change-request-approved',
      'change-request-cancelled', 'change-request-created', 'change-request-discarded', 'change-request-rejected',
      'change-request-sent-to-review', 'change-request-scheduled', 'change-request-scheduled-application-success',
      'change-request-scheduled-application-failure', 'change-request-schedule-suspended', 'release-plan-progressions-paused',
      'release-plan-progressions-resumed', 'context-field-created', 'context-field-deleted', 'context-field-updated',
      'feature-archived', 'feature-created', 'feature-deleted', 'feature-environment-disabled', 'feature-environment-enabled',
      'feature-environment-variants-updated', 'feature-metadata-updated', 'feature-potentially-stale-on', 'feature-project-change',
      'feature-revived', 'feature-stale-off', 'feature-stale-on', 'feature-strategy-add', 'feature-strategy-remove',
      'feature-strategy-update', 'feature-tagged', 'feature-untagged', 'group-created', 'group-deleted', 'group-updated',
      'banner-created', 'banner-updated', 'banner-deleted', 'project-created', 'project-archived', 'project-deleted',
      'segment-created', 'segment-deleted', 'segment-updated', 'service-account-created', 'service-account-deleted',
      'service-account-updated', 'user-created', 'user-deleted', 'user-updated', 'user-access-request-registered',
      'user-access-request-approved', 'user-access-request-rejected',
    ],
    tagTypes: [
      {
        name: 'slack',
        description: 'Slack tag used by the slack-addon to specify the slack channel.',
        icon: 'S',
      },
    ],
  },
  {
    name: 'teams',
    displayName: 'Microsoft Teams',
    deprecated: 'This integration is deprecated. Please try the new Microsoft Teams - Workflow integration instead.',
    description: 'Allows Unleash to post updates to Microsoft Teams.',
    documentationUrl: 'https://docs.getunleash.io/integrate/teams',
    howTo: 'The Microsoft Teams integration allows Unleash to post Updates when a feature flag is updated.',
    parameters: [
      {
        name: 'url',
        displayName: 'Microsoft Teams webhook URL',
        description: '(Required)',
        type: 'url',
        required: true,
        sensitive: true,
      },
      {
        name: 'customHeaders',
        displayName: 'Extra HTTP Headers',
        placeholder: '{\n  "ISTIO_USER_KEY": "hunter2",\n  "SOME_OTHER_CUSTOM_HTTP_HEADER": "SOMEVALUE"\n}',
        description: '(Optional) Used to add extra HTTP Headers to the request the plugin fires off. This must be a '
          + 'valid json object of key-value pairs where both the key and the value are strings',
        required: false,
        sensitive: true,
        type: 'textfield',
      },
    ],
    events: [
      'feature-created', 'feature-updated', 'feature-archived', 'feature-revived', 'feature-stale-on', 'feature-stale-off',
      'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-remove', 'feature-strategy-update',
      'feature-strategy-add', 'feature-metadata-updated', 'feature-variants-updated', 'feature-project-change',
      'feature-potentially-stale-on', 'change-added', 'change-discarded', 'change-edited', 'change-request-applied',
      'change-request-approval-added', 'change-request-approved', 'change-request-cancelled', 'change-request-created',
      'change-request-discarded', 'change-request-rejected', 'change-request-sent-to-review', 'change-request-scheduled',
      'change-request-scheduled-application-success', 'change-request-scheduled-application-failure',
      'change-request-schedule-suspended', 'release-plan-progressions-paused', 'release-plan-progressions-resumed',
    ],
  },
  {
    name: 'datadog',
    displayName: 'Datadog',
    description: 'Allows Unleash to post updates to Datadog.',
    documentationUrl: 'https://docs.getunleash.io/integrate/datadog',
    howTo: 'The Datadog integration allows Unleash to post Updates to Datadog when a feature flag is updated.',
    parameters: [
      {
        name: 'url',
        displayName: 'Datadog Events URL',
        description: 'Default URL: https://api.datadoghq.com/api/v1/events. Needs to be changed if you\'re not using the US1 site.',
        type: 'url',
        required: false,
        sensitive: false,
      },
      {
        name: 'apiKey',
        displayName: 'Datadog API key',
        placeholder: 'j96c23b0f12a6b3434a8d710110bd862',
        description: '(Required) API key to connect to Datadog',
        type: 'text',
        required: true,
        sensitive: true,
      },
      {
        name: 'sourceTypeName',
        displayName: 'Datadog Source Type Name',
        description: '(Optional) source_type_name parameter to be included in Datadog events. Valid values: '
          + 'https://docs.datadoghq.com/integrations/faq/list-of-api-source-attribute-value/',
        type: 'text',
        required: false,
        sensitive: false,
      },
      {
        name: 'customHeaders',
        displayName: 'Extra HTTP Headers',
        placeholder: '{\n  "SOME_CUSTOM_HTTP_HEADER": "SOME_VALUE",\n  "SOME_OTHER_CUSTOM_HTTP_HEADER": "SOME_OTHER_VALUE"\n}',
        description: '(Optional) Used to add extra HTTP Headers to the request the plugin fires off. This must be a '
          + 'valid json object of key-value pairs where both the key and the value are strings',
        required: false,
        sensitive: true,
        type: 'textfield',
      },
      {
        name: 'bodyTemplate',
        displayName: 'Body template',
        placeholder: '{\n  "event": "{{event.type}}",\n  "createdBy": "{{event.createdBy}}",\n  "featureToggle": '
          + '"{{event.data.name}}",\n  "timestamp": "{{event.data.createdAt}}"\n}',
        description: '(Optional) The default format is a markdown string formatted by Unleash. You may override the '
          + 'format of the body using a mustache template.',
        required: false,
        sensitive: false,
        type: 'textfield',
      },
    ],
    events: [
      'feature-created', 'feature-updated', 'feature-archived', 'feature-revived', 'feature-stale-on', 'feature-stale-off',
      'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-remove', 'feature-strategy-update',
      'feature-strategy-add', 'feature-metadata-updated', 'feature-project-change', 'feature-environment-variants-updated',
      'feature-potentially-stale-on',
    ],
    tagTypes: [
      {
        name: 'datadog',
        description: 'All Datadog tags added to a specific feature are sent to datadog event stream.',
        icon: 'D',
      },
    ],
  },
  {
    name: 'new-relic',
    displayName: 'New Relic',
    description: 'Allows Unleash to post updates to New Relic Event API.',
    documentationUrl: 'https://docs.getunleash.io/integrate',
    howTo: 'The New Relic integration allows Unleash to post Updates to New Relic Event API when a feature flag is updated.',
    parameters: [
      {
        name: 'url',
        displayName: 'New Relic Event URL',
        description: '(Required) If data is hosted in EU then use the EU region endpoints '
          + '(https://docs.newrelic.com/docs/using-new-relic/welcome-new-relic/getting-started/'
          + 'introduction-eu-region-data-center/#endpoints). '
          + 'Otherwise, it should be something like this: '
          + 'https://insights-collector.newrelic.com/v1/accounts/YOUR_ACCOUNT_ID/events',
        type: 'url',
        required: true,
        sensitive: false,
      },
      {
        name: 'licenseKey',
        displayName: 'New Relic License Key',
        placeholder: 'eu01xx0f12a6b3434a8d710110bd862',
        description: '(Required) License key to connect to New Relic',
        type: 'text',
        required: true,
        sensitive: true,
      },
      {
        name: 'customHeaders',
        displayName: 'Extra HTTP Headers',
        placeholder: '{\n  "SOME_CUSTOM_HTTP_HEADER": "SOME_VALUE",\n  "SOME_OTHER_CUSTOM_HTTP_HEADER": "SOME_OTHER_VALUE"\n}',
        description: '(Optional) Used to add extra HTTP Headers to the request the plugin fires off. This must be a '
          + 'valid json object of key-value pairs where both the key and the value are strings',
        required: false,
        sensitive: true,
        type: 'textfield',
      },
      {
        name: 'bodyTemplate',
        displayName: 'Body template',
        placeholder: '{\n  "event": "{{event.type}}",\n  "eventType": "unleash",\n  "createdBy": '
          + '"{{event.createdBy}}",\n  "featureToggle": "{{event.data.name}}",\n  "timestamp": '
          + '"{{event.data.createdAt}}"\n}',
        description: '(Optional) The default format is a markdown string formatted by Unleash. You may override the '
          + 'format of the body using a mustache template.',
        required: false,
        sensitive: false,
        type: 'textfield',
      },
    ],
    events: [
      'feature-created', 'feature-updated', 'feature-archived', 'feature-revived', 'feature-stale-on', 'feature-stale-off',
      'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-remove', 'feature-strategy-update',
      'feature-strategy-add', 'feature-metadata-updated', 'feature-project-change', 'feature-environment-variants-updated',
      'feature-potentially-stale-on',
    ],
    tagTypes: [
      {
        name: 'new-relic',
        description: 'All New Relic tags added to a specific feature are sent to New Relic Event API.',
        icon: 'D',
      },
    ],
  },
  {
    name: 'teamsworkflow',
    displayName: 'Microsoft Teams - Workflow',
    description: 'Allows Unleash to post updates to Microsoft Teams.',
    documentationUrl: 'https://docs.getunleash.io/integrate/teams-workflow',
    howTo: 'The Microsoft Teams integration allows Unleash to post updates when a feature flag is updated '
      + 'using a Workflow defined webhook.',
    parameters: [
      {
        name: 'url',
        displayName: 'Microsoft Teams Workflow webhook URL',
        description: '(Required)',
        type: 'url',
        required: true,
        sensitive: true,
      },
      {
        name: 'customHeaders',
        displayName: 'Extra HTTP Headers',
        placeholder: '{\n  "ISTIO_USER_KEY": "hunter2",\n  "SOME_OTHER_CUSTOM_HTTP_HEADER": "SOMEVALUE"\n}',
        description: '(Optional) Used to add extra HTTP Headers to the request the plugin fires off. This must be a '
          + 'valid json object of key-value pairs where both the key and the value are strings',
        required: false,
        sensitive: true,
        type: 'textfield',
      },
    ],
    events: [
      'feature-created', 'feature-updated', 'feature-archived', 'feature-revived', 'feature-stale-on', 'feature-stale-off',
      'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-remove', 'feature-strategy-update',
      'feature-strategy-add', 'feature-metadata-updated', 'feature-variants-updated', 'feature-project-change',
      'feature-potentially-stale-on', 'change-added', 'change-discarded', 'change-edited', 'change-request-applied',
      'change-request-approval-added', 'change-request-approved', 'change-request-cancelled', 'change-request-created',
      'change-request-discarded', 'change-request-rejected', 'change-request-sent-to-review', 'change-request-scheduled',
      'change-request-scheduled-application-success', 'change-request-scheduled-application-failure',
      'change-request-schedule-suspended', 'release-plan-progressions-paused', 'release-plan-progressions-resumed',
    ],
  },
];
