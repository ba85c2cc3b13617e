/**
 * The `date-time` format as Unleash's validator applies it (docs/rules.md §1.3): the zone is optional,
 * `T`, `t` or a space separates date and time, and calendar ranges are real (leap years, 23:59:60).
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt\s](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function isLeap(year) {
    return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}
export function isDateTime(value) {
    const m = DATE_TIME.exec(value);
    if (!m)
        return false;
    const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
    if (month < 1 || month > 12)
        return false;
    const maxDay = month === 2 && isLeap(year) ? 29 : DAYS[month - 1];
    if (day < 1 || day > maxDay)
        return false;
    if (hour > 23 || minute > 59)
        return false;
    if (second > 59 && !(second === 60 && hour === 23 && minute === 59))
        return false;
    const zone = m[8];
    if (zone && zone.length > 1) {
        const digits = zone.slice(1).replace(':', '');
        if (Number(digits.slice(0, 2)) > 23 || (digits.length > 2 && Number(digits.slice(2)) > 59))
            return false;
    }
    return true;
}
/** Parses a date-time accepted by `isDateTime`; a zone-less value is read as UTC. */
export function parseDateTime(value) {
    const m = DATE_TIME.exec(value);
    if (m && !m[8])
        return new Date(`${value.replace(/[t\s]/, 'T')}Z`);
    return new Date(value.replace(/^(.{10})[t\s]/, '$1T'));
}
//# sourceMappingURL=formats.js.map