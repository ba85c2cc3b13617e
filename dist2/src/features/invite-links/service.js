import { randomBytes } from 'node:crypto';
import { buildEvents, retrying } from '../../db/outbox.js';
import { notFound, validationError } from '../../errors.js';
import { parseDateTime } from '../../schemas/formats.js';
import { SYSTEM_USER } from '../api-tokens/service.js';
import { ROOT_ROLES, VIEWER_ROLE } from '../users/service.js';
export const NOT_FOUND_MESSAGE = 'Could not find public signup token.';
/**
 * The same instant one calendar month later, in UTC: same day of the month, clamped to the last
 * day of a shorter month (31 January → 28/29 February), time of day kept.
 */
export function oneMonthAfter(instant) {
    const monthIndex = instant.getUTCMonth() + 1;
    const year = instant.getUTCFullYear() + Math.floor(monthIndex / 12);
    const month = monthIndex % 12;
    const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    return new Date(Date.UTC(year, month, Math.min(instant.getUTCDate(), lastDay), instant.getUTCHours(), instant.getUTCMinutes(), instant.getUTCSeconds(), instant.getUTCMilliseconds()));
}
/** A link can be used while enabled and while the UTC date of its expiry is after now (docs/rules.md §5.3). */
export function isUsable(token, now = new Date()) {
    const e = token.expiresAt;
    return token.enabled && Date.UTC(e.getUTCFullYear(), e.getUTCMonth(), e.getUTCDate()) > now.getTime();
}
/** `{base}/new-user?invite={secret}` through WHATWG URL normalisation; a base path is kept. */
export function inviteUrl(baseUrl, secret) {
    return new URL(`${baseUrl.replace(/\/+$/, '')}/new-user?invite=${encodeURIComponent(secret)}`).toString();
}
function roleOf(id) {
    const role = ROOT_ROLES.find((r) => r.id === id) ?? VIEWER_ROLE;
    return { id: role.id, name: role.name, type: role.type };
}
function linkUser(user) {
    return { id: user._id, name: user.name, username: user.username };
}
export class InviteLinkService {
    store;
    userStore;
    users;
    outbox;
    baseUrl;
    constructor(store, userStore, users, outbox, baseUrl) {
        this.store = store;
        this.userStore = userStore;
        this.users = users;
        this.outbox = outbox;
        this.baseUrl = baseUrl;
    }
    show(token, users, now = new Date()) {
        return {
            secret: token._id,
            name: token.name,
            url: inviteUrl(this.baseUrl, token._id),
            expiresAt: token.expiresAt.toISOString(),
            enabled: token.enabled && token.expiresAt.getTime() > now.getTime(),
            createdAt: token.createdAt.toISOString(),
            createdBy: token.createdBy,
            role: roleOf(token.roleId),
            users,
        };
    }
    async withUsers(tokens) {
        const joined = await this.userStore.joinedThrough(tokens.map((t) => t._id));
        const now = new Date();
        return tokens.map((token) => this.show(token, joined.filter((u) => u.signupToken === token._id).map(linkUser), now));
    }
    async create(input, audit) {
        const now = new Date();
        const requested = parseDateTime(input.expiresAt);
        if (Number.isNaN(requested.getTime()))
            throw validationError(`"expiresAt" must be a valid date-time. You provided "${input.expiresAt}".`);
        const cap = oneMonthAfter(now);
        const token = {
            _id: randomBytes(16).toString('hex'),
            name: input.name,
            expiresAt: requested.getTime() < cap.getTime() ? requested : cap,
            enabled: true,
            createdAt: now,
            createdBy: audit.name,
            roleId: VIEWER_ROLE.id,
        };
        const shown = this.show(token, [], now);
        await this.outbox.insert(this.store.collection, token, buildEvents(audit, [
            { type: 'public-signup-token-created', data: shown },
        ], { at: now }));
        return shown;
    }
    async list() {
        return await this.withUsers(await this.store.list());
    }
    async get(secret) {
        const token = await this.store.get(secret);
        if (!token)
            throw notFound(NOT_FOUND_MESSAGE);
        return (await this.withUsers([token]))[0];
    }
    /** Rename, change expiry (not capped, as in Unleash), enable or disable. */
    async update(secret, input, audit) {
        if (input.name === undefined && input.expiresAt === undefined && input.enabled === undefined) {
            throw validationError('Provide at least one of "expiresAt", "enabled" or "name" to change.');
        }
        const expiresAt = input.expiresAt === undefined ? undefined : parseDateTime(input.expiresAt);
        if (expiresAt && Number.isNaN(expiresAt.getTime())) {
            throw validationError(`"expiresAt" must be a valid date-time. You provided "${input.expiresAt}".`);
        }
        await this.outbox.exclusive(`invite-link:${secret}`, () => retrying(async () => {
            const current = await this.store.get(secret);
            if (!current)
                throw notFound(NOT_FOUND_MESSAGE);
            const next = {
                ...current,
                ...(input.name !== undefined ? { name: input.name } : {}),
                ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
                ...(expiresAt ? { expiresAt } : {}),
            };
            const data = {
                secret,
                ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
                ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
                ...(input.name !== undefined ? { name: input.name } : {}),
            };
            await this.outbox.replace(this.store.collection, current, next, buildEvents(audit, [
                { type: 'public-signup-token-updated', data },
            ]));
        }));
        return await this.get(secret);
    }
    /** Whether the link can be used to join right now (exists, enabled, not expired by date). */
    async isValid(secret) {
        const token = await this.store.get(secret);
        return token !== null && isUsable(token);
    }
    /**
     * Joins through a link: the new user gets the link's role, is linked to the link, and both
     * `user-created` and `public-signup-token-user-added` are stored with the user in one write,
     * by the system user (nobody is logged in). Returns null when the link cannot be used.
     */
    async join(secret, input) {
        const token = await this.store.get(secret);
        if (!token || !isUsable(token))
            return null;
        return await this.users.create(input, {
            rootRole: token.roleId,
            audit: SYSTEM_USER,
            signupToken: secret,
            extraEvents: (user) => [{ type: 'public-signup-token-user-added', data: { secret, userId: user.id } }],
        });
    }
}
//# sourceMappingURL=service.js.map