import t from 'tap';
import { labelOf, presentEvent, summaryOf } from '../../../src/features/events/presenter.js';
const U = 'http://localhost:4242';
const FLAG = `[f1](${U}/projects/p1/features/f1)`;
const PROJ = `[p1](${U}/projects/p1)`;
function event(overrides) {
    return {
        id: 1, type: 'x', createdBy: 'ann', createdAt: new Date('2026-01-02T03:04:05.678Z'), createdByUserId: -42,
        data: null, preData: null, tags: [], featureName: 'f1', project: 'p1', environment: 'dev', ...overrides,
    };
}
const summary = (o) => summaryOf(event(o), U);
t.test('labels', async (t) => {
    const labels = {
        'feature-created': 'Flag created', 'feature-archived': 'Flag archived', 'feature-revived': 'Flag revived',
        'feature-environment-enabled': 'Flag enabled', 'feature-environment-disabled': 'Flag disabled',
        'feature-environment-variants-updated': 'Flag variants updated', 'feature-strategy-add': 'Flag strategy added',
        'feature-strategy-remove': 'Flag strategy removed', 'feature-strategy-update': 'Flag strategy updated',
        'segment-created': 'Segment created', 'segment-updated': 'Segment updated', 'segment-deleted': 'Segment deleted',
        'api-token-created': 'API token created', 'api-token-deleted': 'API token deleted',
        'change-request-created': 'Change request created', 'change-added': 'Change added', 'change-discarded': 'Change discarded',
        'change-request-applied': 'Change request applied', 'change-request-approved': 'Change request approved',
        'change-request-cancelled': 'Change request cancelled', 'change-request-rejected': 'Change request rejected',
        'change-request-sent-to-review': 'Change request sent to review', 'user-created': 'User created',
        'feature-dependency-added': 'feature-dependency-added', 'tag-created': 'tag-created', 'strategy-created': 'strategy-created',
        'public-signup-token-created': 'public-signup-token-created', constructor: 'constructor',
    };
    for (const [type, label] of Object.entries(labels))
        t.equal(labelOf(type), label, type);
});
t.test('flag summaries', async (t) => {
    t.equal(summary({ type: 'feature-created' }), `**ann** created **${FLAG}** in project **${PROJ}**`);
    t.equal(summary({ type: 'feature-archived' }), `**ann** archived **f1** in project **${PROJ}**`);
    t.equal(summary({ type: 'feature-revived' }), `**ann** revived **${FLAG}** in project **${PROJ}**`);
    t.equal(summary({ type: 'feature-environment-enabled' }), `**ann** enabled **${FLAG}** for the **dev** environment in project **${PROJ}**`);
    t.equal(summary({ type: 'feature-environment-disabled' }), `**ann** disabled **${FLAG}** for the **dev** environment in project **${PROJ}**`);
    t.equal(summary({ type: 'feature-environment-variants-updated' }), `**ann** updated variants for **${FLAG}** for the **dev** environment in project **${PROJ}**`);
    t.equal(summary({ type: 'feature-strategy-add', data: { name: 'flexibleRollout', title: 'Rollout A' } }), `**ann** added strategy **Rollout A** to **${FLAG}** for the **dev** environment in project **${PROJ}**`);
    t.equal(summary({ type: 'feature-strategy-add', data: { name: 'default', title: null } }), `**ann** added strategy **default** to **${FLAG}** for the **dev** environment in project **${PROJ}**`, 'title null → name');
    t.equal(summary({ type: 'feature-strategy-remove', preData: { name: 'remoteAddress', title: '' } }), `**ann** removed strategy **remoteAddress** from **${FLAG}** for the **dev** environment in project **${PROJ}**`, 'empty title → name');
    t.equal(summary({ type: 'feature-created', featureName: null, project: null }), `**ann** created **[](${U}/projects//features/)** in project **[](${U}/projects/)**`, 'missing values render empty');
});
t.test('sample 65 texts', async (t) => {
    t.equal(summary({ type: 'feature-strategy-add', createdBy: 'peer-admin', featureName: 'peer.demo', project: 'default', environment: 'development', data: { name: 'flexibleRollout', title: 'peer rollout' } }), '**peer-admin** added strategy **peer rollout** to **[peer.demo](http://localhost:4242/projects/default/features/peer.demo)** for the **development** environment in project **[default](http://localhost:4242/projects/default)**');
    t.equal(summary({ type: 'segment-created', createdBy: 'peer-admin', featureName: null, project: null, environment: null, data: { name: 'peer-segment' } }), '**peer-admin** created segment **peer-segment**');
    t.equal(summary({ type: 'feature-dependency-added', createdBy: 'peer-admin' }), '**peer-admin** triggered **feature-dependency-added**');
    t.equal(summary({ type: 'api-token-created', createdBy: 'peer-admin', data: { tokenName: 'peer-client' } }), '**peer-admin** created API token ****');
});
t.test('segment, token, user, fallback summaries', async (t) => {
    t.equal(summary({ type: 'segment-updated', data: { name: 'new' }, preData: { name: 'old' } }), '**ann** updated segment **old**');
    t.equal(summary({ type: 'segment-deleted', preData: { name: 'gone' } }), '**ann** deleted segment **gone**');
    t.equal(summary({ type: 'api-token-deleted', preData: { tokenName: 't' } }), '**ann** deleted API token ****');
    t.equal(summary({ type: 'user-created', data: { name: 'Bob' } }), '**ann** created user **Bob**');
    t.equal(summary({ type: 'tag-created' }), '**ann** triggered **tag-created**');
    t.equal(summary({ type: 'strategy-created', createdBy: 'migration' }), '**migration** triggered **strategy-created**');
});
t.test('change request summaries', async (t) => {
    const cr = (type, o = {}) => summary({ type, data: { changeRequestId: 7 }, ...o });
    const link = `**[#7](${U}/projects/p1/change-requests/7)**`;
    t.equal(cr('change-request-created'), `**ann** created change request ${link} for feature flag **${FLAG}** in the **dev** environment in project **${PROJ}**`);
    t.equal(cr('change-added', { featureName: null }), `**ann** added a change to change request ${link} in the **dev** environment in project **${PROJ}**`);
    t.equal(cr('change-discarded', { environment: null }), `**ann** discarded a change in change request ${link} for feature flag **${FLAG}** in project **${PROJ}**`);
    t.equal(cr('change-request-applied', { featureName: null, environment: null }), `**ann** applied change request ${link} in project **${PROJ}**`);
    t.match(cr('change-request-approved'), /^\*\*ann\*\* approved change request \*\*\[#7\]/);
    t.match(cr('change-request-cancelled'), /^\*\*ann\*\* cancelled change request /);
    t.match(cr('change-request-rejected'), /^\*\*ann\*\* rejected change request /);
    t.match(cr('change-request-sent-to-review'), /^\*\*ann\*\* sent to review change request /);
});
t.test('feature-strategy-update {change}', async (t) => {
    const head = `**ann** updated **${FLAG}** in project **${PROJ}** by updating strategy`;
    const update = (preData, data) => summary({ type: 'feature-strategy-update', preData, data });
    const flex = (parameters, extra = {}) => ({ name: 'flexibleRollout', title: null, parameters, constraints: [], segments: [], ...extra });
    t.equal(update(flex({ rollout: '50', stickiness: 'default', groupId: 'f1' }), flex({ rollout: '100', stickiness: 'userId', groupId: 'g' })), `${head} **flexibleRollout** in **dev** stickiness from default to userId; rollout from 50% to 100%; groupId from f1 to g`);
    t.equal(update(flex({ rollout: '50' }), flex({ rollout: '50', stickiness: 'userId' })), `${head} **flexibleRollout** in **dev** stickiness to userId`, 'no old stickiness');
    t.equal(update(flex({ stickiness: 'default' }), flex({ stickiness: 'default', rollout: '10' })), `${head} **flexibleRollout** in **dev** rollout to 10%`);
    t.equal(update(flex({ rollout: '5' }), flex({ rollout: '5' })), `${head} **flexibleRollout** in **dev**`, 'nothing changed: no pieces');
    t.equal(update(flex({ rollout: '5' }, { title: 'Old' }), flex({ rollout: '5' }, { title: 'New', segments: [1, 2] })), `${head} **Old** in **dev** segments from empty set of segments to (1,2)`, 'title of preData first');
    const constraints = [
        { values: ['a', 'b'], operator: 'IN', contextName: 'userId' },
        { value: '5', values: [], inverted: true, operator: 'NUM_GT', contextName: 'age' },
        { values: ['x'], operator: 'WEIRD', contextName: 'c' },
    ];
    t.equal(update({ name: 'default', constraints: [], segments: [3] }, { name: 'default', constraints, segments: [3] }), `${head} **default** in **dev** constraints from empty set of constraints to [userId is one of (a,b), age not is a number greater than 5, c WEIRD (x)]`);
    t.equal(update({ name: 'default', constraints, segments: [] }, { name: 'default', constraints: [], segments: [4] }), `${head} **default** in **dev** constraints from [userId is one of (a,b), age not is a number greater than 5, c WEIRD (x)] to empty set of constraints; segments from empty set of segments to (4)`);
    const ops = [
        ['NOT_IN', 'is not one of'], ['STR_CONTAINS', 'is a string that contains'], ['STR_STARTS_WITH', 'is a string that starts with'],
        ['STR_ENDS_WITH', 'is a string that ends with'], ['NUM_EQ', 'is a number equal to'], ['NUM_GTE', 'is a number greater than or equal to'],
        ['NUM_LT', 'is a number less than'], ['NUM_LTE', 'is a number less than or equal to'], ['DATE_BEFORE', 'is a date before'],
        ['DATE_AFTER', 'is a date after'], ['SEMVER_EQ', 'is a SemVer equal to'], ['SEMVER_GT', 'is a SemVer greater than'],
        ['SEMVER_LT', 'is a SemVer less than'], ['SEMVER_GTE', 'is a SemVer greater than or equal to'],
        ['SEMVER_LTE', 'is a SemVer less than or equal to'], ['REGEX', 'matches regex'],
    ];
    for (const [operator, words] of ops) {
        t.match(update({ name: 'default', constraints: [] }, { name: 'default', constraints: [{ value: 'v', values: [], operator, contextName: 'k' }] }), `to [k ${words} v]`, operator);
    }
    t.equal(update({ name: 'remoteAddress', parameters: { IPs: '1.1.1.1' }, constraints: [] }, { name: 'remoteAddress', parameters: { IPs: '1.1.1.1,2.2.2.2' }, constraints: [] }), `${head} **remoteAddress** in **dev** IPs from [1.1.1.1] to [1.1.1.1,2.2.2.2]`);
    t.equal(update({ name: 'remoteAddress', parameters: {} }, { name: 'remoteAddress', parameters: { IPs: '10.0.0.1' } }), `${head} **remoteAddress** in **dev** IPs to [10.0.0.1]`);
    t.equal(update({ name: 'remoteAddress', parameters: { IPs: '10.0.0.1' } }, { name: 'remoteAddress', parameters: { IPs: '' } }), `${head} **remoteAddress** in **dev** IPs from [10.0.0.1] to empty set of IPs`);
    t.equal(update({ name: 'applicationHostname', parameters: { hostNames: 'a' }, segments: [1] }, { name: 'applicationHostname', parameters: { hostNames: 'a,b' }, segments: [] }), `${head} **applicationHostname** in **dev** hostNames from [a] to [a,b]; segments from (1) to empty set of segments`);
    t.equal(update({ name: 'myCustom', parameters: { a: '1' }, constraints: [] }, { name: 'myCustom', parameters: { a: '2' }, constraints: [{ values: ['x'], operator: 'IN', contextName: 'y' }] }), `${head} **myCustom** in **dev**`, 'other strategies: no pieces');
});
t.test('presentEvent: key order and optional group keys', async (t) => {
    const plain = presentEvent(event({ type: 'tag-created' }), U);
    t.same(Object.keys(plain), ['id', 'type', 'createdBy', 'createdAt', 'createdByUserId', 'data', 'preData', 'tags', 'featureName', 'project', 'environment', 'label', 'summary']);
    t.equal(plain.createdAt, '2026-01-02T03:04:05.678Z');
    const grouped = presentEvent(event({ type: 'feature-created', groupType: 'transaction', groupId: 'abc' }), U);
    t.same(Object.keys(grouped).slice(11), ['groupType', 'groupId', 'label', 'summary']);
});
//# sourceMappingURL=presenter.test.js.map