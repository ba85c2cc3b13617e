import { api, h, showError, signedIn } from './common.js';

// The whole query lives in the address bar (environments, projects, context, changeRequest, and
// the filters), so a link opens the same evaluation: the page runs it as soon as it loads.
const KNOWN_FIELDS = [
  ['appName', 'App name', 'required'],
  ['userId', 'User id'],
  ['sessionId', 'Session id'],
  ['remoteAddress', 'Remote address'],
  ['currentTime', 'Current time (ISO 8601)'],
  ['environment', 'Environment (context field)'],
];
const ROW_HEIGHT = 32;
/** Rows drawn beyond the visible ones on each side, so fast scrolling shows no gaps. */
const OVERSCAN = 8;

const params = new URLSearchParams(location.search);
const changeRequest = params.get('changeRequest');
const pageMessage = document.getElementById('page-message');
const form = document.getElementById('query');
const fieldsBox = document.getElementById('context-fields');
const rawBox = document.getElementById('context-raw');
const raw = document.getElementById('raw');
const rawMode = document.getElementById('raw-mode');
const formMessage = document.getElementById('form-message');
const results = document.getElementById('results');
const filterName = document.getElementById('filter-name');
const filterOutcome = document.getElementById('filter-outcome');
const counts = document.getElementById('counts');
const detail = document.getElementById('detail');

let environments = [];
let projects = [];
/** Top-level context keys that are neither known fields nor properties (kept as they are). */
let extraContext = {};
let allRows = [];
let shownRows = [];
let active = -1;

// ---------- context editor ----------

function propertyRow(name = '', value = '') {
  const index = fieldsBox.querySelectorAll('.prop').length + 1;
  const row = h('div', { class: 'row prop' },
    h('div', {}, h('label', { for: `prop-name-${index}` }, `Property ${index} name`), h('input', { id: `prop-name-${index}`, type: 'text', class: 'prop-name', value: name })),
    h('div', {}, h('label', { for: `prop-value-${index}` }, `Property ${index} value`), h('input', { id: `prop-value-${index}`, type: 'text', class: 'prop-value', value })),
  );
  row.append(h('div', {}, h('button', { type: 'button', 'aria-label': `Remove property ${index}`, onclick: () => row.remove() }, 'Remove')));
  return row;
}

function drawFields(context) {
  const known = new Set(KNOWN_FIELDS.map(([key]) => key));
  extraContext = Object.fromEntries(Object.entries(context).filter(([key]) => !known.has(key) && key !== 'properties'));
  const grid = h('div', { class: 'grid2' }, KNOWN_FIELDS.map(([key, label, required]) => h('div', {},
    h('label', { for: `ctx-${key}` }, label, required ? ' (required)' : ''),
    h('input', { id: `ctx-${key}`, type: 'text', 'data-key': key, value: context[key] ?? '', required: Boolean(required) }),
  )));
  const props = h('div', { id: 'props' });
  const addButton = h('button', { type: 'button', onclick: () => { props.append(propertyRow()); props.lastElementChild.querySelector('input').focus(); } }, 'Add custom property');
  fieldsBox.replaceChildren(grid, h('h3', { class: 'hint' }, 'Custom properties'), props, h('p', {}, addButton));
  for (const [name, value] of Object.entries(context.properties ?? {})) props.append(propertyRow(name, String(value)));
}

function contextFromFields() {
  const context = { ...extraContext };
  for (const input of fieldsBox.querySelectorAll('input[data-key]')) {
    if (input.value.trim() !== '') context[input.dataset.key] = input.value.trim();
  }
  const properties = {};
  for (const row of fieldsBox.querySelectorAll('.prop')) {
    const name = row.querySelector('.prop-name').value.trim();
    if (name) properties[name] = row.querySelector('.prop-value').value;
  }
  if (Object.keys(properties).length) context.properties = properties;
  return context;
}

function currentContext() {
  if (!rawMode.checked) return contextFromFields();
  let parsed;
  try {
    parsed = JSON.parse(raw.value);
  } catch (err) {
    throw new Error(`The context is not valid JSON: ${err.message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('The context must be a JSON object, like {"appName": "web"}.');
  return parsed;
}

rawMode.addEventListener('change', () => {
  formMessage.replaceChildren();
  if (rawMode.checked) {
    raw.value = JSON.stringify(contextFromFields(), null, 2);
  } else {
    try {
      drawFields(currentContextFromRaw());
    } catch (err) {
      rawMode.checked = true;
      showError(formMessage, err);
      return;
    }
  }
  rawBox.hidden = !rawMode.checked;
  fieldsBox.hidden = rawMode.checked;
});

function currentContextFromRaw() {
  const parsed = JSON.parse(raw.value);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('The context must be a JSON object.');
  return parsed;
}

// ---------- selection of environments and projects ----------

function drawSelectors(selectedEnvs, selectedProjects) {
  const envBox = document.getElementById('environments');
  envBox.replaceChildren(h('legend', {}, 'Environments'), ...environments.map((env) => h('label', { class: 'inline' },
    h('input', { type: 'checkbox', name: 'environment', value: env.name, checked: selectedEnvs.includes(env.name) }), env.name)));
  const projectBox = document.getElementById('projects');
  const all = selectedProjects === '*';
  const allBox = h('input', { type: 'checkbox', id: 'all-projects', checked: all });
  const boxes = projects.map((p) => h('input', { type: 'checkbox', name: 'project', value: p.id, checked: !all && selectedProjects.includes(p.id), disabled: all }));
  allBox.addEventListener('change', () => boxes.forEach((b) => { b.disabled = allBox.checked; }));
  projectBox.replaceChildren(h('legend', {}, 'Projects'), h('label', { class: 'inline' }, allBox, 'All projects'),
    ...projects.map((p, i) => h('label', { class: 'inline' }, boxes[i], p.name ?? p.id)));
}

function selectedEnvironments() {
  return [...document.querySelectorAll('input[name=environment]:checked')].map((b) => b.value);
}

function selectedProjects() {
  if (document.getElementById('all-projects').checked) return '*';
  return [...document.querySelectorAll('input[name=project]:checked')].map((b) => b.value);
}

// ---------- evaluation ----------

function variantText(variant) {
  if (!variant) return '';
  return variant.enabled ? variant.name : 'disabled';
}

function contextText(context) {
  const { properties, appName, ...rest } = context;
  const parts = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`);
  for (const [k, v] of Object.entries(properties ?? {})) parts.push(`${k}=${v}`);
  return parts.join(', ') || `appName=${appName}`;
}

/** One row per flag × environment × context combination. */
function rowsOf(response) {
  const rows = [];
  for (const feature of response.features) {
    for (const [env, list] of Object.entries(feature.environments)) {
      list.forEach((result, i) => rows.push({
        key: `${feature.name}\u0000${env}\u0000${i}`, name: feature.name, project: feature.projectId, env, context: result.context, result,
      }));
    }
  }
  return rows;
}

function sameOutcome(a, b) {
  return a.isEnabled === b.isEnabled && variantText(a.variant) === variantText(b.variant);
}

async function evaluate(push) {
  formMessage.replaceChildren();
  let context;
  try {
    context = currentContext();
  } catch (err) {
    return showError(formMessage, err);
  }
  if (!context.appName) return showError(formMessage, 'The context needs an app name (appName).');
  const envs = selectedEnvironments();
  const chosenProjects = selectedProjects();
  if (!changeRequest && envs.length === 0) return showError(formMessage, 'Choose at least one environment.');
  if (!changeRequest && chosenProjects !== '*' && chosenProjects.length === 0) return showError(formMessage, 'Choose at least one project, or all projects.');

  const query = new URLSearchParams();
  if (changeRequest) query.set('changeRequest', changeRequest);
  else {
    query.set('environments', envs.join(','));
    query.set('projects', chosenProjects === '*' ? '*' : chosenProjects.join(','));
  }
  query.set('context', JSON.stringify(context));
  if (filterName.value) query.set('q', filterName.value);
  if (filterOutcome.value !== 'all') query.set('outcome', filterOutcome.value);
  const url = `/vane/playground?${query}`;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);

  const button = document.getElementById('run');
  button.disabled = true;
  results.hidden = false;
  results.setAttribute('aria-busy', 'true');
  counts.replaceChildren(h('span', { class: 'loading' }, 'Evaluating…'));
  try {
    if (changeRequest) {
      const preview = await api(`/api/admin/playground/change-request/${encodeURIComponent(changeRequest)}`, { method: 'POST', body: { context } });
      const input = preview.input;
      const current = await api('/api/admin/playground/advanced', {
        method: 'POST', body: { environments: input.environments, projects: input.projects, context },
      });
      const before = new Map(rowsOf(current).map((row) => [row.key, row]));
      allRows = rowsOf(preview).map((row) => {
        const now = before.get(row.key);
        return { ...row, before: now?.result ?? null, changed: !now || !sameOutcome(now.result, row.result) };
      });
      document.getElementById('title').textContent =
        `Change request ${changeRequest}: preview in ${input.environments.join(', ')} (project ${[].concat(input.projects).join(', ')})`;
    } else {
      const response = await api('/api/admin/playground/advanced', {
        method: 'POST', body: { environments: envs, projects: chosenProjects, context },
      });
      allRows = rowsOf(response);
    }
    active = -1;
    applyFilters();
    showDetail(null);
  } catch (err) {
    allRows = [];
    applyFilters();
    showError(formMessage, err);
  } finally {
    button.disabled = false;
    results.removeAttribute('aria-busy');
  }
}

// ---------- results table (virtualized) ----------

const columns = changeRequest
  ? [['Flag', (r) => r.name], ['Environment', (r) => r.env], ['Context', (r) => contextText(r.context)],
    ['Now', (r) => outcomeBadge(r.before)], ['Preview', (r) => outcomeBadge(r.result)],
    ['Variant (now → preview)', (r) => `${variantText(r.before?.variant)} → ${variantText(r.result.variant)}`],
    ['Changed', (r) => (r.changed ? h('span', { class: 'badge changed' }, 'Changed') : '')]]
  : [['Flag', (r) => r.name], ['Project', (r) => r.project], ['Environment', (r) => r.env],
    ['Context', (r) => contextText(r.context)], ['Enabled', (r) => outcomeBadge(r.result)], ['Variant', (r) => variantText(r.result.variant)]];
const widths = changeRequest ? '1.2fr 0.9fr 1.1fr 80px 120px 1.4fr 100px' : '1.6fr 0.8fr 0.9fr 1.6fr 90px 0.8fr';

function outcomeBadge(result) {
  if (!result) return h('span', { class: 'badge unknown' }, 'absent');
  return result.isEnabled ? h('span', { class: 'badge on' }, 'enabled') : h('span', { class: 'badge off' }, 'disabled');
}

const body = h('div', { class: 'body', role: 'rowgroup', tabindex: '0', 'aria-label': 'Results; arrow keys move, Enter shows details' });
const spacer = h('div', { 'aria-hidden': 'true' });
body.append(spacer);
const grid = h('div', { class: 'vgrid', role: 'grid', 'aria-labelledby': 'results-title', style: `--cols: ${widths}` },
  h('div', { class: 'head', role: 'row', 'aria-rowindex': '1' }, columns.map(([title]) => h('div', { role: 'columnheader' }, title))),
  body);
document.getElementById('grid').append(grid);

function drawRows() {
  const first = Math.max(0, Math.floor(body.scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(shownRows.length, Math.ceil((body.scrollTop + body.clientHeight) / ROW_HEIGHT) + OVERSCAN);
  const drawn = [];
  for (let i = first; i < last; i++) {
    const row = shownRows[i];
    const el = h('div', {
      class: `r${row.changed ? ' changed' : ''}${i === active ? ' active' : ''}`, role: 'row', id: `row-${i}`,
      'aria-rowindex': String(i + 2), 'aria-selected': i === active ? 'true' : 'false', style: `top: ${i * ROW_HEIGHT}px`,
      'data-flag': row.name, 'data-changed': row.changed ? 'true' : undefined,
    }, columns.map(([, cell]) => {
      const value = cell(row);
      return h('div', { role: 'gridcell', title: typeof value === 'string' ? value : undefined }, value);
    }));
    el.addEventListener('click', () => select(i, true));
    drawn.push(el);
  }
  spacer.style.height = `${shownRows.length * ROW_HEIGHT}px`;
  body.replaceChildren(spacer, ...drawn);
  if (active >= 0) body.setAttribute('aria-activedescendant', `row-${active}`);
  else body.removeAttribute('aria-activedescendant');
}

body.addEventListener('scroll', () => requestAnimationFrame(drawRows));
body.addEventListener('keydown', (event) => {
  const page = Math.max(1, Math.floor(body.clientHeight / ROW_HEIGHT) - 1);
  const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity };
  if (event.key in moves) {
    event.preventDefault();
    const next = Math.min(shownRows.length - 1, Math.max(0, (active < 0 ? -1 : active) + moves[event.key]));
    select(next, false);
  } else if (event.key === 'Enter' && active >= 0) {
    event.preventDefault();
    showDetail(shownRows[active]);
    detail.focus();
  }
});

function select(index, open) {
  if (index < 0 || index >= shownRows.length) return;
  active = index;
  const top = index * ROW_HEIGHT;
  if (top < body.scrollTop) body.scrollTop = top;
  else if (top + ROW_HEIGHT > body.scrollTop + body.clientHeight) body.scrollTop = top + ROW_HEIGHT - body.clientHeight;
  drawRows();
  showDetail(shownRows[index]);
  if (open) body.focus();
}

function applyFilters() {
  const needle = filterName.value.trim().toLowerCase();
  const outcome = filterOutcome.value;
  shownRows = allRows.filter((row) => {
    if (needle && !row.name.toLowerCase().includes(needle)) return false;
    if (outcome === 'enabled') return row.result.isEnabled === true;
    if (outcome === 'disabled') return row.result.isEnabled !== true;
    if (outcome === 'changed') return row.changed;
    return true;
  });
  active = -1;
  const flags = new Set(allRows.map((r) => r.name)).size;
  const changed = changeRequest ? `; ${allRows.filter((r) => r.changed).length} changed by the change request` : '';
  counts.textContent = `Showing ${shownRows.length} of ${allRows.length} results (${flags} flags)${changed}.`;
  body.scrollTop = 0;
  drawRows();
}

for (const [value, label] of [['all', 'Any outcome'], ['enabled', 'Enabled'], ['disabled', 'Disabled'], ...(changeRequest ? [['changed', 'Changed by the change request']] : [])]) {
  filterOutcome.append(h('option', { value }, label));
}
filterName.value = params.get('q') ?? '';
filterOutcome.value = params.get('outcome') ?? 'all';
function filtersChanged() {
  applyFilters();
  const query = new URLSearchParams(location.search);
  if (filterName.value) query.set('q', filterName.value); else query.delete('q');
  if (filterOutcome.value !== 'all') query.set('outcome', filterOutcome.value); else query.delete('outcome');
  history.replaceState(null, '', `/vane/playground?${query}`);
}
filterName.addEventListener('input', filtersChanged);
filterOutcome.addEventListener('change', filtersChanged);

// ---------- detail panel ----------

function yesNo(value) {
  if (value === true) return h('span', { class: 'badge on' }, 'true');
  if (value === false) return h('span', { class: 'badge off' }, 'false');
  // A strategy result that could not be fully evaluated: {enabled, evaluationStatus}.
  if (value && typeof value === 'object' && 'enabled' in value) {
    const status = value.evaluationStatus === 'complete' ? '' : ` (${value.evaluationStatus})`;
    return h('span', { class: `badge ${value.enabled === true ? 'on' : value.enabled === false ? 'off' : 'unknown'}` }, `${value.enabled}${status}`);
  }
  return h('span', { class: 'badge unknown' }, typeof value === 'object' ? JSON.stringify(value) : String(value));
}

function constraintText(c) {
  const values = c.values?.length ? c.values.join(', ') : (c.value ?? '');
  return `${c.contextName} ${c.inverted ? 'NOT ' : ''}${c.operator}${c.caseInsensitive ? ' (any case)' : ''} ${values}`;
}

function explain(result) {
  const parts = [];
  const strategies = result.strategies?.data ?? [];
  const why = [];
  if (!result.isEnabledInCurrentEnvironment) why.push('The flag is switched off in this environment, so it is disabled whatever its strategies say.');
  if (result.hasUnsatisfiedDependency) why.push('A parent flag it depends on does not meet its condition, so it is disabled.');
  if (result.isEnabledInCurrentEnvironment && !result.hasUnsatisfiedDependency) {
    if (strategies.length === 0) why.push('The flag is on in this environment and has no strategies, so it is enabled for everyone.');
    else if (result.isEnabled) why.push('At least one strategy matched this context (see below).');
    else why.push('No strategy matched this context (see below).');
  }
  parts.push(h('ul', {}, why.map((w) => h('li', {}, w))));
  parts.push(h('h3', { class: 'hint' }, `Strategies (result: ${JSON.stringify(result.strategies?.result)})`));
  for (const s of strategies) {
    parts.push(h('div', { class: 'strategy' },
      h('div', {}, h('strong', {}, s.title || s.name), ' ', yesNo(s.result), s.disabled ? ' (disabled strategy: skipped)' : ''),
      Object.keys(s.parameters ?? {}).length
        ? h('div', { class: 'mono' }, Object.entries(s.parameters).map(([k, v]) => `${k}=${v}`).join(', ')) : null,
      s.constraints?.length ? h('div', {}, 'Constraints:', h('ul', {}, s.constraints.map((c) => h('li', {}, constraintText(c), ' → ', yesNo(c.result))))) : null,
      s.segments?.length ? h('div', {}, 'Segments:', h('ul', {}, s.segments.map((seg) => h('li', {}, `${seg.name} (#${seg.id}) → `, yesNo(seg.result),
        seg.constraints?.length ? h('ul', {}, seg.constraints.map((c) => h('li', {}, constraintText(c), ' → ', yesNo(c.result)))) : null)))) : null,
    ));
  }
  const variant = result.variant;
  let variantWhy = 'No variant: the flag is disabled for this context, or it has no variants.';
  if (variant?.enabled) {
    variantWhy = variant.feature_enabled === false ? 'Variant reported though the flag is off.'
      : `Variant "${variant.name}" chosen from the ${result.variants?.length ?? 0} variants by its weights and the stickiness of this context (a strategy's own variants take precedence when it matches).`;
  }
  parts.push(h('h3', { class: 'hint' }, 'Variant'));
  parts.push(h('p', {}, variantWhy));
  if (variant?.payload) parts.push(h('pre', { class: 'mono' }, JSON.stringify(variant.payload, null, 2)));
  return parts;
}

function showDetail(row) {
  if (!row) {
    detail.replaceChildren(h('h2', { id: 'detail-title' }, 'Details'),
      h('p', { class: 'hint' }, 'Choose a result (click, or arrow keys and Enter in the table) to see why it came out that way.'));
    return;
  }
  detail.setAttribute('tabindex', '-1');
  const head = [
    h('h2', { id: 'detail-title' }, row.name),
    h('dl', {},
      h('dt', {}, 'Project'), h('dd', {}, row.project),
      h('dt', {}, 'Environment'), h('dd', {}, row.env),
      h('dt', {}, 'Context'), h('dd', { class: 'mono' }, JSON.stringify(row.context)),
      h('dt', {}, 'Enabled'), h('dd', {}, outcomeBadge(row.result)),
      h('dt', {}, 'Variant'), h('dd', {}, variantText(row.result.variant))),
  ];
  if (changeRequest) {
    detail.replaceChildren(...head,
      row.changed ? h('p', {}, h('span', { class: 'badge changed' }, 'Changed'), ' The change request changes this result.') : h('p', {}, 'The change request does not change this result.'),
      h('h3', {}, 'With the change request'), ...explain(row.result),
      h('h3', {}, 'Now'), ...(row.before ? explain(row.before) : [h('p', {}, 'Not evaluated today (the flag is new in the change request).')]));
  } else {
    detail.replaceChildren(...head, ...explain(row.result));
  }
}

// ---------- start ----------

async function start() {
  try {
    await signedIn();
    [environments, projects] = await Promise.all([
      api('/api/admin/environments').then((r) => r.environments),
      api('/api/admin/projects').then((r) => r.projects),
    ]);
  } catch (err) {
    if (err.status !== 401) showError(pageMessage, err);
    return;
  }
  pageMessage.replaceChildren();
  let context = { appName: 'playground' };
  const contextParam = params.get('context');
  if (contextParam) {
    try {
      context = JSON.parse(contextParam);
    } catch {
      showError(formMessage, 'The context in the address is not valid JSON; it is shown as text to fix.');
      rawMode.checked = true;
      raw.value = contextParam;
    }
  }
  const envParam = params.get('environments');
  const envs = envParam ? envParam.split(',').filter(Boolean) : environments.filter((e) => e.enabled !== false).slice(0, 1).map((e) => e.name);
  const projectParam = params.get('projects') ?? '*';
  drawSelectors(envs, projectParam === '*' ? '*' : projectParam.split(',').filter(Boolean));
  if (changeRequest) {
    document.getElementById('environments').hidden = true;
    document.getElementById('projects').hidden = true;
  }
  if (!rawMode.checked) drawFields(context);
  rawBox.hidden = !rawMode.checked;
  fieldsBox.hidden = rawMode.checked;
  form.hidden = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    evaluate(true);
  });
  if (contextParam && !rawMode.checked) await evaluate(false);
}

start();

// Back and forward between evaluations: the address holds the whole query, so run what it says.
window.addEventListener('popstate', () => location.reload());
