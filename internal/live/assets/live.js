// The live view of one tab: JPEG frames over a WebSocket, drawn on a
// canvas; each drawn frame is acknowledged, so the stream goes as fast as
// this viewer draws. "Take control" sends the mouse and keyboard to the
// tab (the agent's input waits meanwhile); "Hand back" returns it.
'use strict';

// A read-only share link (/dashboard/share/SECRET/) shows one session's
// tabs without control: its socket and tab list live under the link.
const shared = location.pathname.startsWith('/dashboard/share/');
const params = new URLSearchParams(location.search);
let session = params.get('session') || '';
const tab = params.get('tab') || '';
document.getElementById('what').textContent = shared ? 'shared session, read-only' : 'session ' + session + ', tab ' + tab;
const canvas = document.getElementById('screen');
const ctx2d = canvas.getContext('2d');
const status = document.getElementById('status');
const takeBtn = document.getElementById('take'), releaseBtn = document.getElementById('release');
window.browserdFrames = 0;
window.browserdHolding = false;

const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
const wsPath = shared ? location.pathname + 'ws?tab=' + encodeURIComponent(tab)
  : '/dashboard/ws?session=' + encodeURIComponent(session) + '&tab=' + encodeURIComponent(tab);
const opened = performance.now();
const ws = new WebSocket(scheme + '//' + location.host + wsPath);
if (shared) {
  takeBtn.hidden = true;
  document.getElementById('home').hidden = true;
  showTabs();
}

// showTabs lists the shared session's tabs, each a link to its view.
async function showTabs() {
  const nav = document.getElementById('tabs');
  try {
    const r = await fetch(location.pathname + 'tabs');
    if (!r.ok) return;
    const data = await r.json();
    session = data.session.id;
    nav.replaceChildren();
    for (const t of data.session.tabs) {
      const a = document.createElement('a');
      a.textContent = t.id + ' — ' + (t.title || t.url || 'about:blank');
      a.href = '?tab=' + encodeURIComponent(t.id);
      nav.append(a);
    }
    nav.hidden = false;
  } catch (e) { /* the view works without the list */ }
}
ws.binaryType = 'blob';
let meta = {w: 1280, h: 720};
const send = (m) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m)); };

ws.onmessage = async (ev) => {
  if (typeof ev.data === 'string') {
    const m = JSON.parse(ev.data);
    if (m.t === 'tab') {
      document.getElementById('what').textContent = (shared ? 'read-only view, ' : 'session ' + session + ', ') + 'tab ' + m.id;
      if (m.ro) takeBtn.hidden = true;
    } else if (m.t === 'frame') {
      meta = m;
      window.browserdMeta = m;
    } else if (m.t === 'control') {
      window.browserdHolding = m.held;
      takeBtn.hidden = m.held;
      releaseBtn.hidden = !m.held;
      status.textContent = m.held ? 'you control this tab' : (m.error ? m.error : 'live');
      if (m.held) canvas.focus();
    }
    return;
  }
  const img = await createImageBitmap(ev.data);
  if (canvas.width !== img.width || canvas.height !== img.height) {
    canvas.width = img.width;
    canvas.height = img.height;
  }
  ctx2d.drawImage(img, 0, 0);
  img.close();
  if (!window.browserdFrames) window.browserdFirstFrameMs = Math.round(performance.now() - opened);
  window.browserdFrames++;
  if (!window.browserdHolding) status.textContent = 'live';
  ws.send('ack');
};
ws.onclose = (ev) => { status.textContent = 'closed' + (ev.reason ? ': ' + ev.reason : ''); };
ws.onerror = () => { status.textContent = 'the live view could not connect'; };

takeBtn.addEventListener('click', () => send({t: 'take'}));
releaseBtn.addEventListener('click', () => send({t: 'release'}));

// The page's CSS pixels under the pointer.
function at(e) {
  const r = canvas.getBoundingClientRect();
  return {x: (e.clientX - r.left) / r.width * meta.w, y: (e.clientY - r.top) / r.height * meta.h};
}
const buttons = ['left', 'middle', 'right'];
function mods(e) { return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0); }
function mouse(type) {
  return (e) => {
    if (!window.browserdHolding) return;
    e.preventDefault();
    const p = at(e);
    send({t: 'mouse', e: type, x: p.x, y: p.y, b: type === 'mouseMoved' ? '' : buttons[e.button] || 'left', c: e.detail || 1, m: mods(e)});
  };
}
canvas.addEventListener('mousedown', (e) => { canvas.focus(); mouse('mousePressed')(e); });
canvas.addEventListener('mouseup', mouse('mouseReleased'));
canvas.addEventListener('mousemove', mouse('mouseMoved'));
canvas.addEventListener('contextmenu', (e) => { if (window.browserdHolding) e.preventDefault(); });
canvas.addEventListener('wheel', (e) => {
  if (!window.browserdHolding) return;
  e.preventDefault();
  const p = at(e);
  send({t: 'wheel', x: p.x, y: p.y, dx: e.deltaX, dy: e.deltaY});
}, {passive: false});
function key(type) {
  return (e) => {
    if (!window.browserdHolding || e.isComposing) return;
    e.preventDefault();
    const text = type === 'keyDown' && e.key.length === 1 && !e.ctrlKey && !e.metaKey ? e.key : (type === 'keyDown' && e.key === 'Enter' ? '\r' : '');
    send({t: 'key', e: type, key: e.key, code: e.code, text: text, kc: e.keyCode, m: mods(e)});
  };
}
canvas.addEventListener('keydown', key('keyDown'));
canvas.addEventListener('keyup', key('keyUp'));
canvas.addEventListener('paste', (e) => {
  if (!window.browserdHolding) return;
  e.preventDefault();
  send({t: 'text', text: e.clipboardData.getData('text')});
});
canvas.addEventListener('compositionend', (e) => { if (window.browserdHolding && e.data) send({t: 'text', text: e.data}); });

// The timeline: the steps of the task this tab belongs to (its
// recording), refreshed while the page is open; a step shows the frame
// of the page after it in place of the live view, until "Back to live".
const timeline = document.getElementById('timeline'), stepsList = document.getElementById('steps');
const stillbox = document.getElementById('stillbox'), still = document.getElementById('still');
let traceTask = '', shownSteps = 0, chosen = 0;
window.browserdSteps = 0;
async function loadSteps() {
  if (shared) return;
  try {
    const r = await fetch('/dashboard/api/trace?session=' + encodeURIComponent(session) + '&tab=' + encodeURIComponent(tab));
    if (!r.ok) return;
    const data = await r.json();
    traceTask = data.task;
    document.getElementById('task').textContent = data.task;
    const actions = data.entries.filter(e => e.type === 'action');
    window.browserdSteps = actions.length;
    if (actions.length === shownSteps) return;
    shownSteps = actions.length;
    stepsList.replaceChildren();
    for (const a of actions) {
      const li = document.createElement('li');
      li.value = a.seq;
      li.dataset.seq = a.seq;
      li.textContent = a.action + (a.success === false ? ' — failed' : '') + ' (' + (a.ms || 0) + ' ms) ';
      const args = document.createElement('span');
      args.className = 'args';
      args.textContent = argsText(a.args);
      li.append(args);
      if (a.success === false) {
        li.className = 'bad';
        if (a.error) {
          // Why it failed, browserd's words (page text in them is redacted).
          const why = document.createElement('div');
          why.className = 'why';
          why.textContent = a.error;
          li.append(why);
        }
      }
      if (a.seq === chosen) li.classList.add('on');
      li.title = a.error || a.url || '';
      li.addEventListener('click', () => showStep(a));
      stepsList.append(li);
    }
    timeline.hidden = false;
  } catch (e) { /* the live view works without the timeline */ }
}
// argsText is a step's arguments as the agent sent them, without the
// empty and false fields a call carries.
function argsText(args) {
  const kept = {};
  for (const [k, v] of Object.entries(args || {})) {
    if (v === '' || v === null || v === false || v === 0 || (Array.isArray(v) && !v.length)) continue;
    kept[k] = v;
  }
  return Object.keys(kept).length ? JSON.stringify(kept) : '';
}
function showStep(a) {
  chosen = a.seq;
  for (const li of stepsList.children) li.classList.toggle('on', Number(li.dataset.seq) === a.seq);
  document.getElementById('stillwhat').textContent = 'after step ' + a.seq + ': ' + a.action + (a.error ? ' — ' + a.error : '');
  still.hidden = !a.frame;
  if (a.frame) still.src = '/dashboard/api/frame?session=' + encodeURIComponent(session) + '&task=' + encodeURIComponent(traceTask) + '&seq=' + a.seq;
  canvas.hidden = true;
  stillbox.hidden = false;
}
document.getElementById('back').addEventListener('click', () => {
  chosen = 0;
  for (const li of stepsList.children) li.classList.remove('on');
  stillbox.hidden = true;
  canvas.hidden = false;
});
loadSteps();
setInterval(loadSteps, 2000);
