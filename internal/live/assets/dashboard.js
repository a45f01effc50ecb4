// The dashboard: the signed-in owner's sessions and, for each tab, its
// latest picture (the recording's frame after its last step), its task,
// its last step and whether it waits for a person; refreshed every two
// seconds. Page titles and URLs are page data: they are set as text, never
// as HTML.
'use strict';

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

const q = encodeURIComponent;

// pictures keeps each tab's <img> across refreshes, so a picture is
// fetched again only when a newer frame exists.
const pictures = new Map();

function picture(s, t) {
  const key = s.id + '\u0000' + t.id;
  let img = pictures.get(key);
  if (!img) {
    img = el('img', undefined, 'shot');
    img.alt = 'the latest picture of tab ' + t.id;
    // A step's frame is written a moment after the step is listed: a
    // picture asked for before it is there fails, and is asked for again
    // at the next refresh.
    img.onerror = () => { img.dataset.src = ''; };
    pictures.set(key, img);
  }
  const src = '/dashboard/api/picture?session=' + q(s.id) + '&task=' + q(t.task || 'default') + '&tab=' + q(t.id) + '&seq=' + t.frame;
  if (img.dataset.src !== src) {
    img.dataset.src = src;
    img.src = src;
  }
  return img;
}

function lastStep(t) {
  const l = t.last;
  if (!l) return el('div', 'no step yet', 'step');
  const d = el('div', 'step ' + l.seq + ': ' + l.action + (l.success ? '' : ' — failed') + ' (' + l.ms + ' ms)', 'step' + (l.success ? '' : ' bad'));
  if (!l.success && l.error) d.append(el('div', l.error, 'why'));
  return d;
}

function tabCard(s, t) {
  const card = el('article', undefined, 'card' + (t.waiting ? ' waits' : ''));
  const live = el('a', undefined, 'pic');
  live.href = '/dashboard/live?session=' + q(s.id) + '&tab=' + q(t.id);
  live.append(t.frame ? picture(s, t) : el('div', 'no picture yet', 'shot none'));
  card.append(live);
  const head = el('div', undefined, 'head');
  const title = el('a', t.id + ' — ' + (t.title || t.url || 'about:blank'));
  title.href = live.href;
  head.append(title);
  card.append(head, el('div', 'task ' + (t.task || 'default') + (t.active ? ' · in front' : '') + (t.state ? ' · ' + t.state : ''), 'task'), el('div', t.url, 'url'), lastStep(t));
  if (t.waiting) card.append(el('div', 'waiting for a person: ' + t.waiting, 'waiting'));
  if (t.review) {
    const close = el('button', 'Close');
    close.type = 'button';
    close.dataset.session = s.id;
    close.dataset.tab = t.id;
    close.addEventListener('click', () => closeTab(s.id, t.id));
    card.append(el('div', 'left for review — the task ended', 'review'), close);
  }
  return card;
}

// renderPending lists the calls a policy holds for a person's approval:
// what the agent asks to do, with its arguments (secrets' values
// redacted), the rule that asks, and Approve / Deny.
function renderPending(pending) {
  const root = document.getElementById('pending');
  root.replaceChildren();
  if (!pending || !pending.length) return;
  root.append(el('h2', 'Waiting for your approval'));
  for (const p of pending) {
    const box = el('section', undefined, 'session pending');
    box.append(el('h3', p.action + (p.session ? ' · session ' + p.session : '') + (p.tab ? ' · tab ' + p.tab : '')));
    box.append(el('div', 'rule: ' + p.rule + ' (' + p.policy + ') · until ' + new Date(p.until).toLocaleTimeString(), 'task'));
    box.append(el('pre', p.args, 'args'));
    const yes = el('button', 'Approve');
    yes.type = 'button';
    yes.className = 'approve';
    yes.dataset.id = p.id;
    yes.addEventListener('click', () => answer(p.id, true));
    const no = el('button', 'Deny');
    no.type = 'button';
    no.className = 'deny';
    no.dataset.id = p.id;
    no.addEventListener('click', () => answer(p.id, false));
    box.append(yes, no);
    root.append(box);
  }
}

// renderPolicies shows what the owner's agents may do.
function renderPolicies(policies) {
  const root = document.getElementById('policies');
  root.replaceChildren();
  if (!policies || !policies.length) return;
  root.append(el('h2', 'Policies'));
  const list = el('ul');
  for (const v of policies) {
    list.append(el('li', v.source + (v.label ? ' (' + v.label + ')' : '') + ': ' + v.summary));
  }
  root.append(list);
}

async function answer(id, approve) {
  const r = await fetch('/dashboard/api/confirm', {
    method: 'POST', credentials: 'same-origin',
    headers: {'Content-Type': 'application/json', 'X-Browserd-Csrf': csrf},
    body: JSON.stringify({id: id, approve: approve}),
  });
  const out = await r.json().catch(() => ({}));
  document.getElementById('updated').textContent = r.ok ? (approve ? 'approved ' : 'denied ') + id : (out.error || 'answering failed');
  const data = await (await fetch('/dashboard/api/sessions', {credentials: 'same-origin'})).json();
  csrf = data.csrf;
  render(data);
}

function render(data) {
  renderPending(data.pending);
  renderPolicies(data.policies);
  const root = document.getElementById('sessions');
  root.replaceChildren();
  if (!data.sessions.length) {
    root.append(el('p', 'No sessions yet.'));
    return;
  }
  const waiting = data.sessions.reduce((n, s) => n + s.tabs.filter(t => t.waiting).length, 0);
  document.getElementById('waiting').textContent = waiting ? waiting + (waiting === 1 ? ' tab waits' : ' tabs wait') + ' for a person' : '';
  for (const s of data.sessions) {
    const box = el('section', undefined, 'session');
    const head = el('h3', s.id);
    head.append(el('span', ' ' + s.state + (s.profile ? ' · profile ' + s.profile : ''), 'state'));
    box.append(head);
    if (s.login) {
      // The last login check: browserd's own sentence (ok, lapsed, error).
      box.append(el('div', s.login.message || (s.login.state + ': ' + s.login.site), 'login login-' + s.login.state));
    }
    if (s.tabs.length) {
      const grid = el('div', undefined, 'tabs');
      for (const t of s.tabs) grid.append(tabCard(s, t));
      box.append(grid);
    }
    root.append(box);
  }
}

// csrf is the dashboard session's token, sent back on every POST.
let csrf = '';

async function closeTab(session, tab) {
  const r = await fetch('/dashboard/api/close', {
    method: 'POST', credentials: 'same-origin',
    headers: {'Content-Type': 'application/json', 'X-Browserd-Csrf': csrf},
    body: JSON.stringify({session: session, tab: tab}),
  });
  const out = await r.json().catch(() => ({}));
  document.getElementById('updated').textContent = r.ok ? 'closed ' + tab : (out.error || 'closing failed');
  const data = await (await fetch('/dashboard/api/sessions', {credentials: 'same-origin'})).json();
  csrf = data.csrf;
  render(data);
}

async function refresh() {
  try {
    const r = await fetch('/dashboard/api/sessions', {credentials: 'same-origin'});
    if (r.status === 401) {
      document.getElementById('sessions').replaceChildren(el('p', 'Signed out: run `browserd dashboard` for a new sign-in link.'));
      return;
    }
    const data = await r.json();
    csrf = data.csrf;
    render(data);
    document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById('updated').textContent = 'the daemon does not answer';
  }
  setTimeout(refresh, 2000);
}
refresh();
