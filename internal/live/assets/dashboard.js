// The dashboard: the signed-in owner's sessions, their tasks and tabs,
// refreshed every two seconds. Page titles and URLs are page data: they
// are set as text, never as HTML.
'use strict';

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function render(data) {
  const root = document.getElementById('sessions');
  root.replaceChildren();
  if (!data.sessions.length) {
    root.append(el('p', 'No sessions yet.'));
    return;
  }
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
      const list = el('ul');
      for (const t of s.tabs) {
        const li = el('li', undefined, 'tab');
        const a = el('a', t.id + ' — ' + (t.title || t.url || 'about:blank'));
        a.href = '/dashboard/live?session=' + encodeURIComponent(s.id) + '&tab=' + encodeURIComponent(t.id);
        li.append(a, el('span', ' task ' + (t.task || 'default') + (t.active ? ' · in front' : '') + (t.state ? ' · ' + t.state : ''), 'task'), el('div', t.url, 'url'));
        if (t.waiting) li.append(el('div', 'waiting for a person: ' + t.waiting, 'waiting'));
        if (t.review) {
          const close = el('button', 'Close');
          close.type = 'button';
          close.dataset.session = s.id;
          close.dataset.tab = t.id;
          close.addEventListener('click', () => closeTab(s.id, t.id));
          li.append(el('div', 'left for review — the task ended', 'review'), close);
        }
        list.append(li);
      }
      box.append(list);
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
