// RangeKV console: shared helpers. Pages call rk.page(name, render) and render from /api/* JSON.
'use strict';
const rk = (() => {
  const NAV = [['index.html', 'Overview'], ['ranges.html', 'Ranges'], ['heatmap.html', 'Key heat map'],
    ['hot.html', 'Hot ranges']];

  // Keys as the server renders them (the CLI's renderer): every answer carries keyText {base64: text}.
  const keyTexts = new Map();

  async function api(path) {
    const r = await fetch('/api/' + path, {cache: 'no-store'});
    const body = await r.json();
    if (!r.ok) {
      throw new Error(body.error || ('HTTP ' + r.status));
    }
    for (const [b64, text] of Object.entries(body.keyText || {})) keyTexts.set(b64, text);
    return body;
  }

  function bytes(b64) {
    const s = atob(b64 || '');
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }

  // A key for people, as the server rendered it; the empty start key is "-inf" (and an empty end "+inf").
  function key(b64, what) {
    if (!b64) return what === 'end' ? '+inf' : '-inf';
    const text = keyTexts.get(b64);
    if (text !== undefined) return text;
    let s = ''; // not in an answer seen yet (cannot happen for keys read from the API): show it escaped
    for (const c of bytes(b64)) {
      s += (c >= 0x20 && c < 0x7f && c !== 0x5c) ? String.fromCharCode(c) : '\\x' + c.toString(16).padStart(2, '0');
    }
    return s;
  }

  function compareKeys(a, b) { // unsigned lexicographic, as the store orders keys
    const x = bytes(a), y = bytes(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) return x[i] - y[i];
    }
    return x.length - y.length;
  }

  function span(d) {
    return '[' + key(d.start) + ', ' + (d.endInfinite ? '+inf' : key(d.end)) + ')';
  }

  function size(n) {
    n = Number(n);
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i === 0 ? n.toFixed(0) : n.toFixed(1)) + ' ' + units[i];
  }

  const qps = v => Number(v || 0).toFixed(1);
  const time = ms => new Date(Number(ms)).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'onclick') e.addEventListener('click', v); else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }

  function table(headers, rows, id) {
    const t = el('table', id ? {id} : {});
    t.append(el('thead', {}, el('tr', {}, ...headers.map(h => el('th', {}, h)))));
    const tb = el('tbody');
    rows.forEach(r => tb.append(el('tr', {}, ...r.map(c => el('td', {}, c)))));
    t.append(tb);
    return t;
  }

  function eventsTable(events) {
    return table(['seq', 'time', 'kind', 'ranges', 'reason', 'detail'], events.map(e => [
      e.seq, time(e.atMillis), e.kind, (e.rangeIds || []).map(id => 'r' + id).join(' '),
      e.reason + figures(e.figures), e.detail]));
  }

  function figures(fs) {
    return (fs && fs.length) ? ' (' + fs.map(f => f.name + '=' + Number(f.value).toPrecision(4)).join(', ') + ')' : '';
  }

  // Builds the frame (nav, title, status line) and runs render(main); errors show on the page, not only in the console.
  function page(title, render) {
    document.title = 'RangeKV · ' + title;
    const nav = el('nav', {}, el('b', {}, 'RangeKV'),
      ...NAV.map(([href, name]) => el('a', {href, class: name === title ? 'active' : ''}, name)));
    const main = el('main', {id: 'main'});
    const status = el('div', {id: 'status', class: 'status'}, 'loading…');
    document.body.append(nav, el('h1', {}, title), status, main);
    render(main).then(() => {
      status.textContent = 'updated ' + new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      document.body.dataset.loaded = 'true';
    }).catch(e => {
      status.textContent = 'error: ' + e.message;
      status.className = 'status error';
      document.body.dataset.loaded = 'error';
    });
  }

  return {api, key, compareKeys, span, size, qps, time, el, table, eventsTable, figures, page};
})();
