// The live view of one tab: JPEG frames over a WebSocket, drawn on a
// canvas; each drawn frame is acknowledged, so the stream goes as fast as
// this viewer draws.
'use strict';

const params = new URLSearchParams(location.search);
const session = params.get('session') || '', tab = params.get('tab') || '';
document.getElementById('what').textContent = 'session ' + session + ', tab ' + tab;
const canvas = document.getElementById('screen');
const ctx2d = canvas.getContext('2d');
const status = document.getElementById('status');
window.browserdFrames = 0;

const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
const ws = new WebSocket(scheme + '//' + location.host + '/dashboard/ws?session=' + encodeURIComponent(session) + '&tab=' + encodeURIComponent(tab));
ws.binaryType = 'blob';
let meta = null;
ws.onmessage = async (ev) => {
  if (typeof ev.data === 'string') {
    meta = JSON.parse(ev.data);
    return;
  }
  const img = await createImageBitmap(ev.data);
  if (canvas.width !== img.width || canvas.height !== img.height) {
    canvas.width = img.width;
    canvas.height = img.height;
  }
  ctx2d.drawImage(img, 0, 0);
  img.close();
  window.browserdFrames++;
  status.textContent = 'live';
  ws.send('ack');
};
ws.onclose = (ev) => { status.textContent = 'closed' + (ev.reason ? ': ' + ev.reason : ''); };
ws.onerror = () => { status.textContent = 'the live view could not connect'; };
