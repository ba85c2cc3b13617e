import { api, formatDate, h, showError } from './common.js';

/** The API's password rules (src/features/users/password.ts), checked as the person types. */
const RULES = [
  { text: 'at least 10 characters', met: (p) => p.length >= 10 },
  { text: 'fewer than 128 characters', met: (p) => p.length <= 128 },
  { text: 'no character three or more times in a row', met: (p) => !/(.)\1{2,}/u.test(p) },
  { text: 'a lowercase letter (or 20+ characters)', met: (p) => p.length >= 20 || /[a-z]/.test(p) },
  { text: 'an uppercase letter (or 20+ characters)', met: (p) => p.length >= 20 || /[A-Z]/.test(p) },
  { text: 'a number (or 20+ characters)', met: (p) => p.length >= 20 || /[0-9]/.test(p) },
  { text: 'a special character (or 20+ characters)', met: (p) => p.length >= 20 || /[^A-Za-z0-9]/.test(p) },
];

const secret = new URLSearchParams(location.search).get('invite') ?? '';
const invite = document.getElementById('invite');
const form = document.getElementById('signup');
const rules = document.getElementById('rules');
const message = document.getElementById('message');

function drawRules() {
  const password = form.password.value;
  rules.replaceChildren(...RULES.map((rule) => {
    const met = rule.met(password);
    return h('li', { class: met ? 'met' : undefined }, rule.text, h('span', { class: 'sr-only' }, met ? ' (met)' : ' (missing)'));
  }));
  return RULES.every((rule) => rule.met(password));
}

async function start() {
  if (!/^[A-Za-z0-9_-]+$/.test(secret)) {
    showError(invite, 'This page needs the invite link you were sent (it ends in ?invite=…).');
    return;
  }
  let info;
  try {
    info = await api(`/auth/invite/${encodeURIComponent(secret)}`);
  } catch (err) {
    showError(invite, err.status === 404 ? 'This invite link does not exist. Ask whoever invited you for a new one.' : err);
    return;
  }
  if (!info.usable) {
    showError(invite, `This invite link from ${info.createdBy} can no longer be used (it expired or was disabled). Ask for a new one.`);
    return;
  }
  invite.replaceChildren(h('p', {},
    h('strong', {}, info.createdBy), ' invited you to Vane as a ', h('strong', {}, info.role),
    '. The link is valid until ', h('time', { datetime: info.expiresAt }, formatDate(info.expiresAt)), '.'));
  form.hidden = false;
  drawRules();
  form.password.addEventListener('input', drawRules);
  form.name.focus();
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = form.name.value.trim();
  const email = form.email.value.trim();
  const password = form.password.value;
  if (!name || !email) return showError(message, 'Enter your name and your e-mail address.');
  if (!drawRules()) return showError(message, 'The password does not meet every rule yet (see the list above).');
  const button = form.querySelector('button');
  button.disabled = true;
  message.replaceChildren(h('p', { class: 'loading' }, 'Creating your account…'));
  try {
    await api(`/invite/${encodeURIComponent(secret)}/signup`, { method: 'POST', body: { name, email, password } });
    await api('/auth/simple/login', { method: 'POST', body: { username: email, password } });
    location.assign('/vane/playground');
  } catch (err) {
    showError(message, err.status === 400 && !err.body ? 'This invite link can no longer be used.' : err);
    button.disabled = false;
  }
});

start();
