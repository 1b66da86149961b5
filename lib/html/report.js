/* toolscore run report: renders the checks of the data island (built by
 * lib/ts_html) lazily: the list in pages, a check's details when opened.
 * Every value is untrusted and reaches the page as text (textContent),
 * never as markup. */
(function () {
  'use strict';
  var OUTCOMES = ['CREATED', 'UPDATED', 'PENDING', 'PASSED', 'FAILED', 'ERROR_MISSING_IN_CI',
    'ERROR_PENDING_IN_CI'];
  var LABELS = ['created', 'updated', 'pending', 'passed', 'failed', 'missing in CI',
    'pending in CI'];
  var CLASSES = ['o-created', 'o-updated', 'o-pending', 'o-passed', 'o-failed', 'o-error', 'o-error'];
  var FILTERS = {
    all: null, failed: [4], errors: [5, 6], created: [0], pending: [2], updated: [1],
    flaky: 'flaky', passed: [3]
  };
  var KEYS = { a: 'all', f: 'failed', e: 'errors', c: 'created', p: 'pending', u: 'updated',
    y: 'flaky', s: 'passed' };
  var PAGE = 200;
  var MAX_LINES = 4000;

  var D = JSON.parse(document.getElementById('toolscore-data').textContent);
  var rows = arr(D.checks);
  var details = arr(D.details);
  var calls = obj(D.calls);
  var flakyNames = new Set(arr(D.flaky_names).filter(isStr));
  var claims = new Map();
  arr(D.duplicates).forEach(function (d) {
    if (Array.isArray(d) && isStr(d[0])) claims.set(d[0], arr(d[1]).filter(isStr));
  });
  var lower = null;

  var list = byId('list');
  var search = byId('search');
  var more = byId('more');
  var state = { filter: 'all', query: '', shown: [], rendered: 0, sel: -1 };

  function byId(id) { return document.getElementById(id); }
  function arr(v) { return Array.isArray(v) ? v : []; }
  function obj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}; }
  function isStr(v) { return typeof v === 'string'; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function nameOf(r) { return isStr(r[0]) ? r[0] : ''; }
  function testOf(r) { return r[1] === 0 ? nameOf(r) : isStr(r[1]) ? r[1] : null; }
  function outcomeOf(r) { var o = r[2]; return o >= 0 && o < 7 ? o : 3; }
  function plural(n, w) { return n + ' ' + w + (n === 1 ? '' : 's'); }

  /* ---- filtering and the list ---------------------------------------- */

  function matches(r, f) {
    var want = FILTERS[f];
    if (want === 'flaky') return flakyNames.has(nameOf(r));
    return want === null || want.indexOf(outcomeOf(r)) >= 0;
  }

  function apply() {
    var q = state.query.trim().toLowerCase();
    var out = [];
    if (q && lower === null) {
      lower = rows.map(function (r) {
        var t = testOf(r);
        return (nameOf(r) + '\n' + (t && t !== nameOf(r) ? t : '')).toLowerCase();
      });
    }
    for (var i = 0; i < rows.length; i++) {
      if (!matches(rows[i], state.filter)) continue;
      if (q && lower[i].indexOf(q) < 0) continue;
      out.push(i);
    }
    state.shown = out;
    state.rendered = 0;
    state.sel = -1;
    list.textContent = '';
    renderMore();
    byId('empty').hidden = out.length > 0;
    byId('shown').textContent = out.length === rows.length ? plural(rows.length, 'check')
      : out.length + ' of ' + plural(rows.length, 'check');
    var chips = document.querySelectorAll('#filters .chip');
    for (var c = 0; c < chips.length; c++)
      chips[c].setAttribute('aria-pressed', chips[c].dataset.filter === state.filter ? 'true' : 'false');
    saveHash();
  }

  function renderMore() {
    var frag = document.createDocumentFragment();
    var end = Math.min(state.shown.length, state.rendered + PAGE);
    for (var k = state.rendered; k < end; k++) frag.appendChild(rowItem(state.shown[k], k));
    list.appendChild(frag);
    state.rendered = end;
    var left = state.shown.length - end;
    more.hidden = left <= 0;
    more.textContent = 'Show ' + Math.min(left, PAGE) + ' more (' + left + ' left)';
  }

  function fmtScore(s) { return typeof s === 'number' ? 'score ' + s.toFixed(2) : ''; }
  function fmtMs(ms) {
    if (typeof ms !== 'number') return '';
    return ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : ms >= 10 ? ms.toFixed(0) + ' ms' : ms.toFixed(2) + ' ms';
  }

  function rowItem(i, k) {
    var r = rows[i];
    var o = outcomeOf(r);
    var li = el('li', 'check');
    li.dataset.i = i;
    li.dataset.k = k;
    var row = el('div', 'row');
    row.setAttribute('role', 'button');
    row.tabIndex = -1;
    row.setAttribute('aria-expanded', 'false');
    row.appendChild(el('span', 'badge ' + CLASSES[o], LABELS[o]));
    var name = el('span', 'name', nameOf(r));
    if (flakyNames.has(nameOf(r))) name.appendChild(el('span', 'tag-flaky', 'flaky'));
    var t = testOf(r);
    if (t !== null && t !== nameOf(r)) name.appendChild(el('span', 'test', 'test ' + t));
    row.appendChild(name);
    row.appendChild(el('span', 'score', fmtScore(r[3])));
    row.appendChild(el('span', 'ms', fmtMs(r[4])));
    li.appendChild(row);
    return li;
  }

  function itemAt(k) { return list.children[k] || null; }

  function select(k, scroll) {
    if (state.shown.length === 0) return;
    k = Math.max(0, Math.min(state.shown.length - 1, k));
    while (k >= state.rendered) renderMore();
    var old = itemAt(state.sel);
    if (old) old.classList.remove('sel');
    state.sel = k;
    var li = itemAt(k);
    li.classList.add('sel');
    if (scroll) li.scrollIntoView({ block: 'nearest' });
  }

  function toggle(li) {
    var row = li.firstChild;
    var open = li.querySelector('.details');
    if (open) {
      li.removeChild(open);
      row.setAttribute('aria-expanded', 'false');
      return;
    }
    li.appendChild(buildDetails(Number(li.dataset.i)));
    row.setAttribute('aria-expanded', 'true');
  }

  /* ---- a check's details ---------------------------------------------- */

  function copyText(text, button) {
    function done(ok) {
      button.textContent = ok ? 'copied' : 'select and copy';
      setTimeout(function () { button.textContent = 'copy'; }, 1500);
    }
    function fallback() {
      var ta = el('textarea');
      ta.value = text;
      ta.style.position = 'fixed';
      ta.style.opacity = '0';
      document.body.appendChild(ta);
      ta.select();
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      document.body.removeChild(ta);
      done(ok);
    }
    if (navigator.clipboard && navigator.clipboard.writeText)
      navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
    else fallback();
  }

  function stripAnsi(s) { return s.replace(/\u001b\[[0-9;?]*[ -\/]*[@-~]/g, ''); }

  function buildDetails(i) {
    var r = rows[i];
    var o = outcomeOf(r);
    var box = el('div', 'details');
    var d = r[6] >= 0 && Array.isArray(details[r[6]]) ? details[r[6]] : null;
    var name = nameOf(r);
    var facts = [OUTCOMES[o]];
    if (typeof r[3] === 'number') facts.push('score ' + r[3] + (d && typeof d[5] === 'number' ? ' (min ' + d[5] + ')' : ''));
    if (typeof r[4] === 'number') facts.push(fmtMs(r[4]));
    var run = arr(D.runs)[r[5]];
    if (run && isStr(run.id) && arr(D.runs).length > 1) facts.push('run ' + run.id);
    box.appendChild(el('div', 'muted', facts.join(' · ')));
    if (d && isStr(d[0]) && d[0]) box.appendChild(el('p', 'message', d[0]));
    if (o === 4 && d && isStr(d[6])) {
      var cmd = d[6]; /* quoted for a shell where the page is made */
      var acc = el('div', 'accept');
      acc.appendChild(el('span', 'muted', 'To accept the new calls:'));
      acc.appendChild(el('code', 'cmd', cmd));
      var b = el('button', 'copy', 'copy');
      b.type = 'button';
      b.addEventListener('click', function (ev) { ev.stopPropagation(); copyText(cmd, b); });
      acc.appendChild(b);
      box.appendChild(acc);
    }
    if (claims.has(name)) {
      box.appendChild(el('h3', null, 'Claimed by more than one test'));
      box.appendChild(el('div', 'mono', claims.get(name).join('\n')));
    }
    if (d && isStr(d[1])) {
      box.appendChild(el('h3', null, 'Drift report'));
      box.appendChild(el('pre', 'report', stripAnsi(d[1])));
    }
    if (o === 4 && d) box.appendChild(sideBySide(d));
    if (flakyNames.has(name)) {
      box.appendChild(el('h3', null, 'Flaky'));
      box.appendChild(flakyEntry(name));
    }
    return box;
  }

  /* ---- expected | actual ---------------------------------------------- */

  function isObj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function kind(v) { return Array.isArray(v) ? 'a' : isObj(v) ? 'o' : 'v'; }
  function same(a, b) {
    if (a === b) return true;
    var ka = kind(a);
    if (ka !== kind(b) || ka === 'v') return false;
    if (ka === 'a') {
      if (a.length !== b.length) return false;
      for (var i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
      return true;
    }
    var keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (var k = 0; k < keys.length; k++)
      if (!Object.prototype.hasOwnProperty.call(b, keys[k]) || !same(a[keys[k]], b[keys[k]])) return false;
    return true;
  }
  function keyPath(path, key) {
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? path + '.' + key : path + '[' + JSON.stringify(key) + ']';
  }

  /* Lines of both sides, aligned: each [leftText, rightText, leftValue,
   * rightValue, diff]; text null: no line on that side (a gap). */
  function Lines() { this.l = []; this.paths = []; this.cut = false; }
  Lines.prototype.add = function (a, b, va, vb, diff) {
    if (this.l.length >= MAX_LINES) { this.cut = true; return; }
    this.l.push([a, b, va, vb, diff]);
  };
  function pad(n) { return new Array(n + 1).join('  '); }
  function prefix(key) { return key === null ? '' : JSON.stringify(key) + ': '; }

  /* One side's value alone, as pretty JSON lines. */
  function alone(out, v, key, depth, comma, side) {
    var p = pad(depth) + prefix(key);
    var k = kind(v);
    function line(text, val) { if (side === 0) out.add(text, null, val, null, true); else out.add(null, text, null, val, true); }
    if (k === 'v') { line(p, JSON.stringify(v) + comma); return; }
    var entries = k === 'a' ? v.map(function (x, i) { return [null, x]; })
      : Object.keys(v).map(function (kk) { return [kk, v[kk]]; });
    if (entries.length === 0) { line(p, (k === 'a' ? '[]' : '{}') + comma); return; }
    line(p + (k === 'a' ? '[' : '{'), null);
    entries.forEach(function (e, i) { alone(out, e[1], e[0], depth + 1, i + 1 < entries.length ? ',' : '', side); });
    line(pad(depth) + (k === 'a' ? ']' : '}') + comma, null);
  }

  /* Both sides' values at path, walked together. */
  function walk(out, a, b, path, key, depth, ca, cb) {
    var ka = kind(a), kb = kind(b);
    var p = pad(depth) + prefix(key);
    if (ka !== kb || ka === 'v') {
      var diff = !same(a, b);
      if (diff) out.paths.push(path);
      if (ka === 'v' && kb === 'v') { out.add(p, p, JSON.stringify(a) + ca, JSON.stringify(b) + cb, diff); return; }
      var start = out.l.length;
      alone(out, a, key, depth, ca, 0);
      var mid = out.l.length;
      alone(out, b, key, depth, cb, 1);
      /* fold the two runs of lines side by side */
      var left = out.l.slice(start, mid), right = out.l.slice(mid);
      out.l.length = start;
      for (var i = 0; i < Math.max(left.length, right.length); i++) {
        var L = left[i], R = right[i];
        out.add(L ? L[0] : null, R ? R[1] : null, L ? L[2] : null, R ? R[3] : null, true);
      }
      return;
    }
    var open = ka === 'a' ? '[' : '{', close = ka === 'a' ? ']' : '}';
    var keys;
    if (ka === 'a') {
      keys = [];
      for (var n = 0; n < Math.max(a.length, b.length); n++) keys.push(n);
    } else {
      keys = Object.keys(a);
      Object.keys(b).forEach(function (kk) { if (!Object.prototype.hasOwnProperty.call(a, kk)) keys.push(kk); });
    }
    if (keys.length === 0) { out.add(p, p, open + close + ca, open + close + cb, false); return; }
    out.add(p + open, p + open, null, null, false);
    var la = ka === 'a' ? a.length : Object.keys(a).length, lb = ka === 'a' ? b.length : Object.keys(b).length;
    var ia = 0, ib = 0;
    keys.forEach(function (kk) {
      var hasA = ka === 'a' ? kk < a.length : Object.prototype.hasOwnProperty.call(a, kk);
      var hasB = ka === 'a' ? kk < b.length : Object.prototype.hasOwnProperty.call(b, kk);
      var sub = ka === 'a' ? path + '[' + kk + ']' : keyPath(path, kk);
      var label = ka === 'a' ? null : kk;
      if (hasA) ia++;
      if (hasB) ib++;
      var commaA = hasA && ia < la ? ',' : '', commaB = hasB && ib < lb ? ',' : '';
      if (hasA && hasB) { walk(out, a[kk], b[kk], sub, label, depth + 1, commaA, commaB); return; }
      out.paths.push(sub);
      alone(out, hasA ? a[kk] : b[kk], label, depth + 1, hasA ? commaA : commaB, hasA ? 0 : 1);
    });
    out.add(pad(depth) + close + ca, pad(depth) + close + cb, null, null, false);
  }

  /* The calls paired as the report's alignment pairs them. */
  function pairs(exp, act, ops) {
    var out = [];
    if (!Array.isArray(ops) || ops.length === 0) {
      for (var i = 0; i < Math.max(exp.length, act.length); i++)
        out.push([i < exp.length ? i : -1, i < act.length ? i : -1]);
      return out;
    }
    ops.forEach(function (op) {
      if (!Array.isArray(op)) return;
      var i1 = op[1] | 0, i2 = op[2] | 0, j1 = op[3] | 0, j2 = op[4] | 0;
      var n = Math.max(i2 - i1, j2 - j1);
      for (var k = 0; k < n; k++)
        out.push([i1 + k < i2 ? i1 + k : -1, j1 + k < j2 ? j1 + k : -1]);
    });
    return out;
  }

  function sideBySide(d) {
    var wrap = el('div', 'compare');
    var exp = isStr(d[3]) ? calls[d[3]] : undefined;
    var act = isStr(d[2]) ? calls[d[2]] : undefined;
    wrap.appendChild(el('h3', null, 'Expected | actual'));
    if (!Array.isArray(exp) || !Array.isArray(act)) {
      wrap.appendChild(el('p', 'muted', 'The ' + (!Array.isArray(exp) ? 'baseline' : 'observed') +
        ' calls are not in this report (too large, or recorded by an older version).'));
      return wrap;
    }
    var out = new Lines();
    var same_run = [];
    function flush() { /* identical calls: one line for the lot */
      if (!same_run.length) return;
      var a = same_run[0], z = same_run[same_run.length - 1];
      var t = same_run.length === 1 ? 'unchanged: expected #' + a[0] + ' = actual #' + a[1]
        : plural(same_run.length, 'unchanged call') + ': expected #' + a[0] + '–#' + z[0] + ' = actual #' + a[1] + '–#' + z[1];
      out.add(t, t, null, null, 'sep');
      same_run = [];
    }
    pairs(exp, act, d[4]).forEach(function (pr) {
      if (pr[0] >= 0 && pr[1] >= 0 && same(exp[pr[0]], act[pr[1]])) { same_run.push(pr); return; }
      flush();
      var path = 'calls[' + (pr[1] >= 0 ? pr[1] : pr[0]) + ']';
      var label = (pr[0] >= 0 ? 'expected #' + pr[0] : 'not expected') + ' | ' + (pr[1] >= 0 ? 'actual #' + pr[1] : 'not called');
      out.add(label.split(' | ')[0], label.split(' | ')[1], null, null, 'sep');
      if (pr[0] >= 0 && pr[1] >= 0) walk(out, exp[pr[0]], act[pr[1]], path, null, 0, '', '');
      else {
        out.paths.push(pr[0] >= 0 ? 'expected calls[' + pr[0] + ']' : 'calls[' + pr[1] + ']');
        alone(out, pr[0] >= 0 ? exp[pr[0]] : act[pr[1]], null, 0, '', pr[0] >= 0 ? 0 : 1);
      }
    });
    flush();
    if (out.paths.length) {
      var ul = el('ul', 'paths');
      out.paths.slice(0, 50).forEach(function (p) { ul.appendChild(el('li', null, p)); });
      if (out.paths.length > 50) ul.appendChild(el('li', 'muted', (out.paths.length - 50) + ' more'));
      wrap.appendChild(el('div', 'muted', 'Differing paths:'));
      wrap.appendChild(ul);
    }
    var grid = el('div', 'sbs');
    var L = el('div', 'col exp'), R = el('div', 'col act');
    L.appendChild(el('div', 'head', 'expected (baseline)'));
    R.appendChild(el('div', 'head', 'actual (observed)'));
    out.l.forEach(function (x) {
      [[L, x[0], x[2]], [R, x[1], x[3]]].forEach(function (side) {
        var ln = el('div', 'ln');
        if (x[4] === 'sep') ln.className = 'ln sep';
        else if (side[1] === null) ln.className = 'ln gap';
        else if (x[4]) ln.className = 'ln diff';
        if (side[1] !== null) {
          ln.appendChild(document.createTextNode(side[1]));
          if (side[2] !== null && side[2] !== undefined) ln.appendChild(el('span', 'v', side[2]));
        }
        side[0].appendChild(ln);
      });
    });
    if (out.cut) R.appendChild(el('div', 'ln muted', '… cut at ' + MAX_LINES + ' lines'));
    grid.appendChild(L);
    grid.appendChild(R);
    wrap.appendChild(grid);
    return wrap;
  }

  /* ---- flaky names ---------------------------------------------------- */

  var flakyByName = null;
  function flakyInfo(name) {
    if (flakyByName === null) {
      flakyByName = new Map();
      if (Array.isArray(D.flaky)) {
        D.flaky.forEach(function (f) { if (isObj(f) && isStr(f.name)) flakyByName.set(f.name, { section: f }); });
      } else {
        arr(D.repeats).forEach(function (r) { if (Array.isArray(r) && isStr(r[0])) flakyByName.set(r[0], { repeat: r }); });
      }
    }
    return flakyByName.get(name) || null;
  }

  function leaves(v, path, out) {
    var k = kind(v);
    if (k === 'v' || (k === 'a' && v.length === 0) || (k === 'o' && Object.keys(v).length === 0)) {
      out.set(path, JSON.stringify(v));
      return;
    }
    if (k === 'a') v.forEach(function (x, i) { leaves(x, path + '[' + i + ']', out); });
    else Object.keys(v).forEach(function (kk) { leaves(v[kk], keyPath(path, kk), out); });
  }

  /* The varying paths of a repeat's lists: [{path, values: [[value, count]], present, of}]. */
  function varied(rep) {
    var lists = arr(rep[7]).filter(function (l) { return Array.isArray(l) && Array.isArray(calls[l[0]]); });
    var total = 0, per = [];
    lists.forEach(function (l) {
      var m = new Map();
      leaves(calls[l[0]], 'calls', m);
      per.push([m, typeof l[1] === 'number' ? l[1] : 1]);
      total += typeof l[1] === 'number' ? l[1] : 1;
    });
    var paths = new Map();
    per.forEach(function (pm) { pm[0].forEach(function (val, p) { if (!paths.has(p)) paths.set(p, new Map()); }); });
    var out = [];
    paths.forEach(function (vals, p) {
      var present = 0;
      per.forEach(function (pm) {
        if (!pm[0].has(p)) return;
        present += pm[1];
        var v = pm[0].get(p);
        vals.set(v, (vals.get(v) || 0) + pm[1]);
      });
      if (vals.size > 1 || present < total) {
        var values = Array.from(vals.entries()).sort(function (x, y) { return y[1] - x[1]; });
        out.push({ path: p, values: values, present: present, of: total });
      }
    });
    return out;
  }

  function flakyEntry(name) {
    var box = el('div', 'flaky-entry');
    var info = flakyInfo(name);
    if (!info) { box.appendChild(el('div', 'muted', 'observed more than once, differently')); return box; }
    if (info.section) {
      var f = info.section;
      if (isStr(f.line)) box.appendChild(el('div', 'line', f.line));
      arr(f.varied).forEach(function (v) {
        if (!isObj(v) || !isStr(v.path)) return;
        var t = v.path + (typeof v.values === 'number' ? ': ' + v.values + ' values' : '') +
          (typeof v.present === 'number' ? ': present in ' + v.present + ' of ' + v.of : '');
        box.appendChild(el('div', 'mono', t));
        var s = arr(v.samples).filter(isObj).map(function (x) {
          return JSON.stringify(x.value) + (typeof x.count === 'number' ? ' ×' + x.count : '');
        });
        if (s.length) box.appendChild(el('div', 'samples', s.join('   ')));
      });
      return box;
    }
    var r = info.repeat;
    var facts = plural(r[1], 'observation') + ', ' + plural(arr(r[7]).length, 'distinct call list');
    if (typeof r[3] === 'boolean') facts += ', pass^k ' + r[3] + ', pass@k ' + r[4] + ' (k = ' + r[2] + ')';
    box.appendChild(el('div', 'line', name + ': ' + facts));
    varied(r).slice(0, 20).forEach(function (v) {
      var t = v.path + (v.present < v.of ? ': present in ' + v.present + ' of ' + v.of : ': ' + plural(v.values.length, 'value'));
      box.appendChild(el('div', 'mono', t));
      box.appendChild(el('div', 'samples', v.values.slice(0, 5).map(function (x) { return x[0] + ' ×' + x[1]; }).join('   ')));
    });
    return box;
  }

  /* ---- the sections below the list ----------------------------------- */

  function sections() {
    var fs = byId('flaky');
    var names = Array.from(flakyNames).sort();
    if (names.length) {
      fs.hidden = false;
      var body = fs.querySelector('.body');
      names.forEach(function (n) {
        body.appendChild(el('div', 'mono', n));
        body.appendChild(flakyEntry(n));
      });
    }
    var ds = byId('duplicates');
    if (claims.size) {
      ds.hidden = false;
      var ul = el('ul');
      claims.forEach(function (tests, n) {
        var li = el('li', 'mono', n);
        li.appendChild(el('div', 'muted', 'claimed by ' + tests.join(', ')));
        ul.appendChild(li);
      });
      ds.querySelector('.body').appendChild(ul);
    }
    var os = byId('orphans').querySelector('.body');
    if (Array.isArray(D.orphans)) {
      if (D.orphans.length === 0) os.appendChild(el('p', 'muted', 'No snapshot of the store is unused.'));
      else {
        os.appendChild(el('p', 'muted', plural(D.orphans.length, 'snapshot') + ' of the store no check referenced:'));
        var ol = el('ul');
        D.orphans.filter(isStr).forEach(function (n) { ol.appendChild(el('li', 'mono', n)); });
        os.appendChild(ol);
      }
    } else {
      os.appendChild(el('p', 'muted', isStr(D.orphans_note) ? D.orphans_note : 'Orphans are not known.'));
    }
    if (D.omitted > 0)
      list.parentNode.insertBefore(el('p', 'note', D.omitted + ' more checks were counted but not listed.'), list);
  }

  /* ---- state in the address (shareable) ------------------------------- */

  function saveHash() {
    var h = '#filter=' + state.filter + (state.query ? '&q=' + encodeURIComponent(state.query) : '');
    if (location.hash !== h && history.replaceState) {
      try { history.replaceState(null, '', h); } catch (e) { /* file:// may refuse */ }
    }
  }

  function loadHash() {
    var m = /[#&]filter=([a-z]+)/.exec(location.hash);
    var q = /[#&]q=([^&]*)/.exec(location.hash);
    if (m && Object.prototype.hasOwnProperty.call(FILTERS, m[1])) state.filter = m[1];
    if (q) {
      try { state.query = decodeURIComponent(q[1]); } catch (e) { state.query = ''; }
      search.value = state.query;
    }
    return !!m;
  }

  /* ---- events --------------------------------------------------------- */

  function setFilter(f) {
    state.filter = f;
    apply();
  }

  byId('filters').addEventListener('click', function (ev) {
    var b = ev.target.closest('.chip');
    if (b && FILTERS.hasOwnProperty(b.dataset.filter)) setFilter(b.dataset.filter);
  });
  var timer = 0;
  search.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(function () { state.query = search.value; apply(); }, 60);
  });
  list.addEventListener('click', function (ev) {
    var row = ev.target.closest('.row');
    if (!row || ev.target.closest('.details')) return;
    var li = row.parentNode;
    select(Number(li.dataset.k), false);
    toggle(li);
  });
  more.addEventListener('click', renderMore);
  var help = byId('help');
  byId('help-button').addEventListener('click', function () { help.hidden = !help.hidden; });
  if ('IntersectionObserver' in window) {
    new IntersectionObserver(function (es) {
      if (es.some(function (e) { return e.isIntersecting; }) && !more.hidden) renderMore();
    }, { rootMargin: '600px' }).observe(more);
  }

  document.addEventListener('keydown', function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var inInput = ev.target === search;
    if (ev.key === 'Escape') {
      if (inInput) { search.blur(); if (!search.value) { state.query = ''; } }
      help.hidden = true;
      return;
    }
    if (inInput) {
      if (ev.key === 'Enter' || ev.key === 'ArrowDown') { ev.preventDefault(); search.blur(); select(0, true); }
      return;
    }
    if (ev.target && /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(ev.target.tagName) && ev.key === 'Enter') return;
    var k = ev.key;
    if (k === 'j' || k === 'ArrowDown') select(state.sel + 1, true);
    else if (k === 'k' || k === 'ArrowUp') select(state.sel < 0 ? 0 : state.sel - 1, true);
    else if ((k === 'Enter' || k === 'o') && state.sel >= 0) toggle(itemAt(state.sel));
    else if (k === '/') { search.focus(); search.select(); }
    else if (k === '?') help.hidden = !help.hidden;
    else if (KEYS.hasOwnProperty(k)) setFilter(KEYS[k]);
    else return;
    ev.preventDefault();
  });

  /* ---- first render --------------------------------------------------- */

  if (!loadHash()) {
    var failed = 0, errors = 0;
    rows.forEach(function (r) { var o = outcomeOf(r); if (o === 4) failed++; else if (o > 4) errors++; });
    state.filter = failed ? 'failed' : errors ? 'errors' : 'all';
  }
  apply();
  sections();
  document.documentElement.dataset.ready = 'true';
  /* for the benchmark (tests/bench/html_bench.py): the first view painted */
  if (window.performance && performance.mark) {
    requestAnimationFrame(function () {
      requestAnimationFrame(function () { performance.mark('toolscore-painted'); });
    });
  }
})();
