/* trtlog report: the page's script (plain JavaScript, no build step).
 *
 * Reads the data trtlog embedded in #trtlog-data and the merge graph's in #trtlog-graph (JSON,
 * or gzip+base64 for big reports) and fills each section. Names from the user's model and log are data: they reach the DOM only
 * through textContent and attribute values (never innerHTML), with control characters made
 * visible. The whole log is in #trtlog-log (gzip+base64) and is unfolded on demand with the
 * browser's DecompressionStream. Links between sections are fragments (#L12, #layer-3,
 * #finding-0, #explore=<name>, #module=<path>, #cmp-row-5) handled by the router below.
 */
(function () {
  'use strict';

  const doc = document;
  let D = null; // the data
  let S = []; // the string table
  const str = (i) => (i === null || i === undefined ? '' : S[i]);

  // -- text and DOM helpers ------------------------------------------------------------------

  // control characters and the line and paragraph separators, shown as escapes (\x07,
  // \u2028): every font has those glyphs
  const HIDDEN = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;
  function visible(text) {
    return String(text).replace(HIDDEN, (c) => {
      const n = c.charCodeAt(0);
      return n > 0xff ? '\\u' + n.toString(16).padStart(4, '0') : '\\x' + n.toString(16).padStart(2, '0');
    });
  }

  function h(tag, attrs, ...kids) {
    const el = doc.createElement(tag);
    setAttrs(el, attrs);
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : visible(kid));
    }
    return el;
  }

  function setAttrs(el, attrs) {
    if (!attrs) return;
    for (const key of Object.keys(attrs)) {
      const value = attrs[key];
      if (value === null || value === undefined || value === false) continue;
      if (key === 'class') el.setAttribute('class', value);
      else if (key === 'text') el.textContent = visible(value);
      else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else el.setAttribute(key, value === true ? '' : String(value));
    }
  }

  const SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs, ...kids) {
    const el = doc.createElementNS(SVG, tag);
    setAttrs(el, attrs);
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : visible(kid));
    }
    return el;
  }

  function clip(text, width) {
    text = visible(text);
    return text.length <= width ? text : text.slice(0, width - 1) + '\u2026';
  }

  function num(v, digits) {
    if (v === null || v === undefined || Number.isNaN(v)) return '\u2013';
    if (v !== 0 && Math.abs(v) < 1e-6) return v.toExponential(2);
    return String(Number(v.toPrecision(digits || 4)));
  }
  const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');
  const ms = (v) => (v === null || v === undefined ? '\u2013' : num(v) + ' ms');
  const pct = (v) => (v === null || v === undefined ? '\u2013' : num(v, 3) + ' %');
  const signed = (v) => (v === null || v === undefined ? '\u2013' : (v > 0 ? '+' : '') + num(v) + ' ms');
  const lineLink = (n) => (n ? h('a', { href: '#L' + n, class: 'line-link' }, String(n)) : '');
  const layerLink = (i, label) =>
    h('a', { href: '#layer-' + i, class: 'layer-link', title: layerName(i) }, label === undefined ? String(i) : label);
  const exploreLink = (name, label) =>
    h('a', { href: '#explore=' + encodeURIComponent(name), class: 'explore-link', title: 'in the merge explorer' }, label || name);
  function layerName(i) {
    const t = D.layers && D.layers.table;
    return t && i < t.name.length ? visible(str(t.name[i])) : '';
  }

  function flash(el) {
    el.classList.remove('flash');
    void el.offsetWidth; // restart the animation
    el.classList.add('flash');
  }

  function reveal(el) {
    el.scrollIntoView({ block: 'center' });
    flash(el);
  }

  function note(text, cls) {
    return h('p', { class: cls || 'note' }, text);
  }

  // -- data ----------------------------------------------------------------------------------

  function base64Bytes(text) {
    text = text.trim();
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
    const bin = atob(text);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  async function gunzip(text) {
    const stream = new Blob([base64Bytes(text)]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  async function loadBlock(id) {
    const el = doc.getElementById(id);
    let text = el ? el.textContent : '';
    if (!text) return null;
    if (el.dataset.encoding === 'gzip+base64') text = new TextDecoder().decode(await gunzip(text));
    return JSON.parse(text);
  }

  async function loadData() {
    const [data, graph] = await Promise.all([loadBlock('trtlog-data'), loadBlock('trtlog-graph')]);
    // the merge graph section has a block and a string table of its own: its strings join
    // the page's and its columns move with them
    if (graph) {
      const base = data.S.length;
      for (const t of graph.S) data.S.push(t);
      for (const col of [graph.nodes.name, graph.nodes.op, graph.edges.pass, graph.fates.reason]) {
        for (let i = 0; i < col.length; i++) if (col[i] !== null) col[i] += base;
      }
      delete graph.S;
    }
    data.graph = graph;
    return data;
  }

  // -- router: links between sections ----------------------------------------------------------

  // a fragment typed by hand may hold a lone %: take it as written then
  function decode(text) {
    try {
      return decodeURIComponent(text);
    } catch (err) {
      return text;
    }
  }

  const routes = [];
  function route(pattern, handler) {
    routes.push([pattern, handler]);
  }
  function go(hash, push) {
    for (const [pattern, handler] of routes) {
      const m = pattern.exec(hash);
      if (m) {
        if (push && location.hash !== hash) history.pushState(null, '', hash);
        Promise.resolve(handler(m)).catch((err) => console.error(err));
        return true;
      }
    }
    return false;
  }
  doc.addEventListener('click', (ev) => {
    const a = ev.target.closest && ev.target.closest('a[href^="#"]');
    if (a && go(a.getAttribute('href'), true)) ev.preventDefault();
  });
  window.addEventListener('hashchange', () => go(location.hash, false));

  // -- a list that renders only its visible rows ---------------------------------------------

  class VirtualList {
    constructor(host, options) {
      this.rowHeight = options.rowHeight || 22;
      this.render = options.render;
      this.count = 0;
      this.highlight = -1;
      this.viewport = h('div', { class: 'vl ' + (options.className || ''), tabindex: '0' });
      this.maxHeight = options.height || 440;
      this.viewport.style.height = this.maxHeight + 'px';
      this.spacer = h('div', { class: 'vl-spacer' });
      this.rows = h('div', { class: 'vl-rows' });
      this.viewport.append(this.spacer, this.rows);
      host.append(this.viewport);
      this.viewport.addEventListener('scroll', () => this.schedule());
      this.first = this.last = -1;
    }
    setCount(n) {
      this.count = n;
      this.spacer.style.height = n * this.rowHeight + 'px';
      // as tall as its rows, up to the height asked for
      this.viewport.style.height = Math.max(3 * this.rowHeight, Math.min(this.maxHeight, n * this.rowHeight + 18)) + 'px';
      this.refresh();
    }
    schedule() {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => {
        this.pending = false;
        this.draw(false);
      });
    }
    draw(force) {
      const top = this.viewport.scrollTop;
      const height = this.viewport.clientHeight || 440;
      const first = Math.max(0, Math.floor(top / this.rowHeight) - 8);
      const last = Math.min(this.count, Math.ceil((top + height) / this.rowHeight) + 8);
      if (!force && first === this.first && last === this.last) return;
      this.first = first;
      this.last = last;
      const frag = doc.createDocumentFragment();
      for (let i = first; i < last; i++) {
        const row = this.render(i);
        row.classList.add('vl-row');
        if (i === this.highlight) row.classList.add('hl');
        row.style.top = i * this.rowHeight + 'px';
        row.style.height = this.rowHeight + 'px';
        row.dataset.row = String(i);
        frag.append(row);
      }
      this.rows.replaceChildren(frag);
    }
    refresh() {
      this.draw(true);
    }
    scrollTo(i) {
      this.highlight = i;
      const target = i * this.rowHeight - (this.viewport.clientHeight || 440) / 2 + this.rowHeight;
      this.viewport.scrollTop = Math.max(0, target);
      this.refresh();
      const row = this.rows.querySelector('[data-row="' + i + '"]');
      if (row) flash(row);
    }
  }

  // -- a sortable, filterable table on the virtual list -----------------------------------------

  // column: {key, label, width, value(row) for sorting, text(row) -> string|Node, title(row),
  //          filter: 'text'|'num'|false, num: bool, cls}
  class Table {
    constructor(host, options) {
      this.columns = options.columns;
      this.all = options.rows;
      this.onClick = options.onClick;
      this.groups = options.groups || null; // rows that hold children (folded), shown unsorted
      this.sortKey = null;
      this.sortDir = 0;
      this.filters = {};
      this.id = options.id;
      this.wrap = h('div', { class: 'table', id: options.id });
      const template = this.columns.map((c) => c.width || 'minmax(6em, 1fr)').join(' ');
      this.template = template;
      const head = h('div', { class: 'thead' });
      head.style.gridTemplateColumns = template;
      this.heads = {};
      for (const c of this.columns) {
        const cell = h(
          'div',
          { class: 'th' + (c.num ? ' num' : ''), dataset: { key: c.key }, title: c.help || 'sort by ' + c.label, onclick: () => this.sortBy(c.key) },
          c.label
        );
        this.heads[c.key] = cell;
        head.append(cell);
      }
      const filters = h('div', { class: 'tfilters' });
      filters.style.gridTemplateColumns = template;
      this.inputs = {};
      for (const c of this.columns) {
        if (c.filter === false) {
          filters.append(h('div'));
          continue;
        }
        const input = h('input', {
          type: 'search',
          class: 'filter',
          placeholder: c.num ? '>0.1' : c.placeholder || 'filter',
          'aria-label': 'filter ' + c.label,
          dataset: { key: c.key },
        });
        let timer = 0;
        input.addEventListener('input', () => {
          clearTimeout(timer);
          timer = setTimeout(() => this.setFilter(c.key, input.value), 150);
        });
        this.inputs[c.key] = input;
        filters.append(h('div', null, input));
      }
      this.status = h('div', { class: 'tstatus' });
      this.wrap.append(head, filters);
      host.append(this.wrap);
      this.list = new VirtualList(this.wrap, {
        height: options.height || 440,
        rowHeight: 22,
        className: 'tbody',
        render: (i) => this.renderRow(i),
      });
      this.wrap.append(this.status);
      this.expanded = new Set();
      this.update();
    }
    isPlain() {
      return !this.sortDir && !Object.values(this.filters).some((f) => f);
    }
    rowsOf() {
      if (!this.groups) return this.all;
      if (this.isPlain()) {
        const out = [];
        for (const row of this.groups) {
          out.push(row);
          if (row.children && this.expanded.has(row)) for (const kid of row.children) out.push(kid);
        }
        return out;
      }
      return this.all;
    }
    update() {
      let rows = this.rowsOf();
      for (const key of Object.keys(this.filters)) {
        const test = this.filters[key];
        if (!test) continue;
        const col = this.columns.find((c) => c.key === key);
        rows = rows.filter((r) => test(col.value(r)));
      }
      if (this.sortDir) {
        const col = this.columns.find((c) => c.key === this.sortKey);
        const dir = this.sortDir;
        const keyed = rows.map((r, i) => [col.value(r), i, r]);
        keyed.sort((a, b) => {
          const x = a[0];
          const y = b[0];
          const xm = x === null || x === undefined || x === '';
          const ym = y === null || y === undefined || y === '';
          if (xm !== ym) return xm ? 1 : -1; // missing values last, either way
          if (!xm && x !== y) return (x < y ? -1 : 1) * dir;
          return a[1] - b[1];
        });
        rows = keyed.map((k) => k[2]);
      }
      this.view = rows;
      for (const c of this.columns) {
        const cell = this.heads[c.key];
        cell.classList.toggle('asc', this.sortKey === c.key && this.sortDir === 1);
        cell.classList.toggle('desc', this.sortKey === c.key && this.sortDir === -1);
      }
      const leaves = this.all.length;
      const shown = rows.filter((r) => !r.children).length;
      this.status.textContent =
        shown === leaves ? leaves + ' rows' : 'showing ' + shown + ' of ' + leaves + ' rows';
      this.list.setCount(rows.length);
    }
    sortBy(key) {
      if (this.sortKey !== key) {
        this.sortKey = key;
        const col = this.columns.find((c) => c.key === key);
        this.sortDir = col.num ? -1 : 1; // numbers: biggest first
      } else if (this.sortDir === (this.columns.find((c) => c.key === key).num ? -1 : 1)) {
        this.sortDir = -this.sortDir;
      } else {
        this.sortDir = 0;
        this.sortKey = null;
      }
      this.update();
    }
    setFilter(key, text, silent) {
      this.filters[key] = makeFilter(text, this.columns.find((c) => c.key === key));
      if (this.inputs[key] && this.inputs[key].value !== text) this.inputs[key].value = text;
      if (!silent) this.update();
    }
    clearFilters() {
      for (const key of Object.keys(this.inputs)) this.setFilter(key, '', true);
      this.sortDir = 0;
      this.sortKey = null;
      this.update();
    }
    renderRow(i) {
      const row = this.view[i];
      const el = h('div', { class: 'tr' + (row.children ? ' group' : '') + (row.parent ? ' child' : '') + (row.cls ? ' ' + row.cls : '') });
      el.style.gridTemplateColumns = this.template;
      for (const c of this.columns) {
        const content = c.text(row);
        const cell = h('div', { class: 'td' + (c.num ? ' num' : '') + (c.cls ? ' ' + c.cls : '') });
        if (content instanceof Node) cell.append(content);
        else cell.textContent = visible(content === null || content === undefined ? '' : content);
        const title = c.title ? c.title(row) : typeof content === 'string' ? content : null;
        if (title) cell.title = visible(title);
        el.append(cell);
      }
      if (row.children) {
        el.addEventListener('click', () => this.toggle(row));
      } else if (this.onClick) {
        el.addEventListener('click', (ev) => {
          if (!ev.target.closest('a')) this.onClick(row, el);
        });
      }
      return el;
    }
    toggle(row) {
      if (this.expanded.has(row)) this.expanded.delete(row);
      else this.expanded.add(row);
      this.update();
    }
    // scroll to the first row that `match` accepts, unfolding its group or clearing filters
    goto(match) {
      let i = this.view.findIndex(match);
      if (i < 0) {
        const target = this.all.find(match);
        if (!target) return false;
        if (target.parent && this.groups) this.expanded.add(target.parent);
        if (this.view.indexOf(target) < 0) this.clearFilters();
        this.update();
        i = this.view.indexOf(target);
      }
      if (i < 0) return false;
      this.wrap.scrollIntoView({ block: 'start' });
      this.list.scrollTo(i);
      return true;
    }
  }

  function makeFilter(text, col) {
    text = (text || '').trim();
    if (!text) return null;
    const m = /^([<>]=?|=)\s*(-?[\d.]+(?:e-?\d+)?)$/.exec(text);
    if (col && col.num && m) {
      const bound = Number(m[2]);
      const op = m[1];
      return (v) =>
        v !== null && v !== undefined && (op === '>' ? v > bound : op === '>=' ? v >= bound : op === '<' ? v < bound : op === '<=' ? v <= bound : v === bound);
    }
    const lower = text.toLowerCase();
    if (lower.endsWith('/*')) {
      const base = lower.slice(0, -2);
      return (v) => {
        const s = String(v === null || v === undefined ? '' : v).toLowerCase();
        return s === base || s.startsWith(base + '/') || base === '';
      };
    }
    return (v) => String(v === null || v === undefined ? '' : v).toLowerCase().includes(lower);
  }

  // -- charts: horizontal bars as SVG --------------------------------------------------------

  // the width of a chart text in its font (svg.chart text in report.css), measured before
  // the chart is in the page, so that no label or value runs past the chart's edge
  let measurer = null;
  function textWidth(text) {
    if (!measurer) {
      measurer = doc.createElement('canvas').getContext('2d');
      measurer.font = '11.5px system-ui, sans-serif';
    }
    return measurer.measureText(text).width;
  }

  function fitText(text, width) {
    text = visible(text);
    if (textWidth(text) <= width) return text;
    let n = Math.max(1, Math.floor(width / 6.6));
    while (n > 1 && textWidth(text.slice(0, n - 1) + '\u2026') > width) n--;
    return text.slice(0, n - 1) + '\u2026';
  }

  // rows: [{label, value, text, href, title, cls}]
  function barChart(rows, options) {
    options = options || {};
    const labelWidth = options.labelWidth || 250;
    // the value texts sit right of their bars: the widest sets the margin
    const texts = rows.map((r) => visible(r.text || num(r.value)));
    const valueWidth = Math.ceil(Math.max(60, ...texts.map(textWidth))) + 10;
    const width = Math.max(options.width || 620, labelWidth + valueWidth + 120);
    const bar = 18;
    const gap = 4;
    const height = rows.length * (bar + gap) + 6;
    const max = Math.max(1e-12, ...rows.map((r) => Math.abs(r.value || 0)));
    const plot = width - labelWidth - valueWidth;
    const root = svg('svg', {
      class: 'chart' + (options.cls ? ' ' + options.cls : ''),
      width: width,
      height: height,
      viewBox: '0 0 ' + width + ' ' + height,
      role: 'img',
      'aria-label': options.title || 'chart',
    });
    rows.forEach((r, k) => {
      const y = k * (bar + gap) + 3;
      const w = Math.max(1, (Math.abs(r.value || 0) / max) * plot);
      const g = svg('g', { class: 'bar ' + (r.cls || '') });
      g.append(svg('title', null, r.title || r.label + ': ' + (r.text || r.value)));
      g.append(svg('text', { x: labelWidth - 6, y: y + bar - 5, 'text-anchor': 'end', class: 'label' }, fitText(r.label, labelWidth - 10)));
      g.append(svg('rect', { x: labelWidth, y: y, width: w, height: bar, rx: 2 }));
      g.append(svg('text', { x: labelWidth + w + 4, y: y + bar - 5, class: 'value' }, texts[k]));
      if (r.href) {
        const a = svg('a', { href: r.href });
        a.append(g);
        root.append(a);
      } else root.append(g);
    });
    return h('figure', { class: 'figure' }, options.title ? h('figcaption', null, options.title) : null, root);
  }

  // -- Findings ------------------------------------------------------------------------------

  const excerpt = new Map();

  const Findings = {
    shownUpTo: 0,
    render(host) {
      const all = D.findings;
      host.replaceChildren();
      if (!all.length) {
        host.append(note('No findings: no rule found a problem in this build.'));
        return;
      }
      const bar = h('div', { class: 'toolbar', id: 'findings-filter' });
      this.severity = 'all';
      for (const sev of ['all', 'error', 'warning', 'info']) {
        const count = sev === 'all' ? all.length : all.filter((f) => f.sev === sev).length;
        bar.append(
          h('button', { type: 'button', class: 'chip' + (sev === 'all' ? ' on' : ''), dataset: { sev: sev }, onclick: () => this.filter(sev) }, sev + ' (' + count + ')')
        );
      }
      this.list = h('div', { class: 'findings', id: 'findings-list' });
      this.more = h('button', { type: 'button', class: 'more', onclick: () => this.page(300) }, 'show more');
      host.append(bar, this.list, this.more);
      this.page(300);
    },
    visibleItems() {
      return D.findings.map((f, i) => [f, i]).filter(([f]) => this.severity === 'all' || f.sev === this.severity);
    },
    filter(sev) {
      this.severity = sev;
      for (const b of doc.querySelectorAll('#findings-filter button')) b.classList.toggle('on', b.dataset.sev === sev);
      this.list.replaceChildren();
      this.shownUpTo = 0;
      this.page(300);
    },
    page(n) {
      const items = this.visibleItems();
      const next = Math.min(items.length, this.shownUpTo + n);
      for (let k = this.shownUpTo; k < next; k++) this.list.append(this.card(items[k][0], items[k][1]));
      this.shownUpTo = next;
      this.more.hidden = next >= items.length;
      this.more.textContent = 'show ' + Math.min(300, items.length - next) + ' more of ' + (items.length - next);
    },
    card(f, i) {
      const ev = [];
      if (f.lines.length) {
        ev.push(h('div', { class: 'ev-lines' }, f.inLog ? 'lines ' : 'lines of ' + (f.source || 'another file') + ' ', f.inLog ? joinLinks(f.lines.map(lineLink)) : f.lines.join(', ')));
        if (f.inLog) {
          const quote = h('pre', { class: 'quote' });
          for (const n of f.lines.slice(0, 3)) {
            // the line break is markup, not data: a text node (h() shows a data newline as \x0a)
            if (excerpt.has(n)) quote.append(h('span', { class: 'qline' }, h('a', { href: '#L' + n, class: 'line-link' }, String(n).padStart(6)), '  ', clip(excerpt.get(n), 240)), doc.createTextNode('\n'));
          }
          if (quote.childNodes.length) ev.push(quote);
        }
      }
      if (f.layers.length) ev.push(h('div', { class: 'ev-layers' }, 'layers ', joinLinks(f.layers.map((n) => layerLink(n)))));
      if (f.ref.length) {
        const links = f.ref.map((n) => (D.cmp ? h('a', { href: '#cmp-a-' + n, title: 'in the comparison' }, String(n)) : String(n)));
        ev.push(h('div', { class: 'ev-layers' }, 'reference layers ', joinLinks(links)));
      }
      if (f.names.length) ev.push(h('div', { class: 'ev-names' }, 'names: ', f.names.map((n) => h('code', { class: 'name' }, str(n)))));
      return h(
        'article',
        { class: 'finding sev-' + f.sev, id: 'finding-' + i },
        h('header', null, h('span', { class: 'badge ' + f.sev }, f.sev), ' ', h('code', { class: 'rule' }, f.rule), ' ', h('span', { class: 'subject' }, f.subject), f.ms !== null ? h('span', { class: 'ms' }, ' ' + ms(f.ms)) : null),
        h('p', { class: 'msg' }, f.msg),
        f.why ? h('p', { class: 'why' }, h('b', null, 'why: '), f.why) : null,
        f.fix ? h('p', { class: 'fix' }, h('b', null, 'fix: '), f.fix) : null,
        ev.length ? h('div', { class: 'evidence' }, h('b', null, 'evidence'), ev) : null
      );
    },
    goto(i) {
      let el = doc.getElementById('finding-' + i);
      if (!el) {
        if (this.severity !== 'all') this.filter('all');
        while (!doc.getElementById('finding-' + i) && this.shownUpTo < D.findings.length) this.page(300);
        el = doc.getElementById('finding-' + i);
      }
      if (el) reveal(el);
    },
  };

  function joinLinks(nodes) {
    const out = [];
    nodes.slice(0, 40).forEach((n, k) => {
      if (k) out.push(', ');
      out.push(n);
    });
    if (nodes.length > 40) out.push(' (+' + (nodes.length - 40) + ' more)');
    return out;
  }

  // -- Passes --------------------------------------------------------------------------------

  const Passes = {
    render(host) {
      host.replaceChildren();
      const P = D.passes;
      const st = P.stages;
      if (st.stage.length) {
        const several = new Set(st.round.map((r, k) => String(st.run[k]) + ':' + String(r))).size > 1;
        const rows = st.stage.map((s, k) => ({
          label: (several ? (st.run[k] !== null ? 'run ' + (st.run[k] + 1) + ' ' : '') + (st.round[k] !== null ? 'round ' + (st.round[k] + 1) + ': ' : '') : '') + s,
          value: st.layers[k],
          text: st.layers[k] + (st.change[k] ? ' (' + (st.change[k] > 0 ? '+' : '') + st.change[k] + ')' : ''),
          href: st.line[k] ? '#L' + st.line[k] : null,
          title: s + ': ' + st.layers[k] + ' layers (line ' + st.line[k] + ')',
        }));
        host.append(barChart(rows, { title: 'Layer count by stage (a bar links to its line)', cls: 'stages', labelWidth: 300 }));
      } else {
        host.append(note('The log prints no layer count by stage (a --verbose build log does).'));
      }
      const ps = P.passes;
      const ev = P.events;
      this.byPass = new Map();
      ev.pass.forEach((p, k) => {
        const key = p === null ? '(no pass)' : str(p);
        if (!this.byPass.has(key)) this.byPass.set(key, []);
        this.byPass.get(key).push(k);
      });
      const names = ps.name.slice();
      for (const key of this.byPass.keys()) if (!names.includes(key)) names.push(key);
      if (!names.length) {
        host.append(note('No optimizer pass ran in this log (a --verbose build log lists them).'));
        return;
      }
      const table = h('table', { class: 'grid passes', id: 'passes-table' });
      table.append(h('thead', null, h('tr', null, ['', 'pass', 'runs', 'fusions', 'removals', 'swaps', 'layers', 'lines', 'what it does'].map((t) => h('th', null, t)))));
      const body = h('tbody');
      names.forEach((name, k) => {
        const known = k < ps.name.length;
        const count = (this.byPass.get(name) || []).length;
        const toggle = h('button', { type: 'button', class: 'expand', 'aria-expanded': 'false', title: count + ' event(s)', disabled: count ? null : true }, count ? '\u25b8' : '');
        const tr = h(
          'tr',
          { id: 'pass-' + k, class: 'pass-row', dataset: { pass: name } },
          h('td', null, toggle),
          h('td', null, h('code', null, name)),
          h('td', { class: 'num' }, known ? String(ps.runs[k]) : ''),
          h('td', { class: 'num' }, known ? String(ps.fusions[k]) : ''),
          h('td', { class: 'num' }, known ? String(ps.removals[k]) : ''),
          h('td', { class: 'num' }, known ? String(ps.swaps[k]) : ''),
          h('td', { class: 'num' }, known && ps.before[k] !== null ? ps.before[k] + ' \u2192 ' + (ps.after[k] === null ? '?' : ps.after[k]) : ''),
          h('td', null, known ? [lineLink(ps.first[k]), ps.last[k] !== ps.first[k] ? ['\u2013', lineLink(ps.last[k])] : null] : ''),
          h('td', { class: 'desc' }, known ? ps.desc[k] || '' : 'events the log does not attribute to a pass')
        );
        body.append(tr);
        if (count) {
          const open = () => this.toggle(tr, toggle, name);
          toggle.addEventListener('click', open);
        }
      });
      table.append(body);
      host.append(h('div', { class: 'scroll-x' }, table));
    },
    toggle(tr, button, name) {
      const next = tr.nextElementSibling;
      if (next && next.classList.contains('pass-events')) {
        next.remove();
        button.textContent = '\u25b8';
        button.setAttribute('aria-expanded', 'false');
        return;
      }
      button.textContent = '\u25be';
      button.setAttribute('aria-expanded', 'true');
      const ev = D.passes.events;
      const ids = this.byPass.get(name) || [];
      const list = h('ol', { class: 'events' });
      const add = (from, to) => {
        for (const k of ids.slice(from, to)) {
          list.append(h('li', null, lineLink(ev.line[k]), ' ', h('span', { class: 'kind' }, str(ev.what[k])), ' ', h('span', { class: 'ev-text' }, clip(str(ev.text[k]), 400))));
        }
      };
      add(0, 500);
      const cell = h('td', { colspan: '9' }, list);
      if (ids.length > 500) {
        const more = h('button', { type: 'button', class: 'more' }, 'show all ' + ids.length);
        more.addEventListener('click', () => {
          add(500, ids.length);
          more.remove();
        });
        cell.append(more);
      }
      tr.after(h('tr', { class: 'pass-events' }, cell));
    },
  };

  // -- Merge explorer ------------------------------------------------------------------------

  const Explorer = {
    render(host) {
      host.replaceChildren();
      const G = D.graph;
      this.G = G;
      const N = G.nodes;
      const kinds = G.nodeKinds;
      this.kindOf = (i) => kinds[N.kind[i]];
      this.entries = [];
      for (let i = 0; i < N.name.length; i++) {
        const kind = kinds[N.kind[i]];
        if (kind !== 'pass') {
          const name = str(N.name[i]);
          this.entries.push({ node: i, name: name, lower: name.toLowerCase(), kind: kind });
        }
      }
      this.byName = new Map();
      for (const e of this.entries) {
        if (!this.byName.has(e.name)) this.byName.set(e.name, []);
        this.byName.get(e.name).push(e.node);
      }
      this.fate = new Map();
      G.fates.node.forEach((n, k) => {
        if (n !== null) this.fate.set(n, k);
      });
      // edges by node, both ways
      const E = G.edges;
      this.out = Array.from({ length: N.name.length }, () => []);
      this.in = Array.from({ length: N.name.length }, () => []);
      for (let e = 0; e < E.s.length; e++) {
        this.out[E.s[e]].push(e);
        this.in[E.t[e]].push(e);
      }
      this.flows = new Set(G.flows.map((r) => G.relations.indexOf(r)).filter((r) => r >= 0));
      const counts = { onnx_node: 0, onnx_initializer: 0, engine_layer: 0, intermediate: 0 };
      for (const e of this.entries) counts[e.kind]++;
      host.append(
        h('p', { class: 'note' }, counts.onnx_node + ' ONNX nodes, ' + counts.onnx_initializer + ' initializers, ' + counts.intermediate + ' intermediate layers, ' + counts.engine_layer + ' engine layers (final layers from ' + (G.finalFrom || 'nowhere: unknown') + (G.finished ? '' : '; the build did not finish') + ').')
      );
      this.input = h('input', { type: 'search', id: 'explorer-search', placeholder: 'search an ONNX node or an engine layer', autocomplete: 'off', 'aria-label': 'search the merge graph' });
      this.results = h('ul', { id: 'explorer-results', class: 'results' });
      this.detail = h('div', { id: 'explorer-detail', class: 'detail' }, note('Pick a node or a layer: its fate, or what it is made of, appears here.'));
      this.graph = h('div', { id: 'explorer-graph', class: 'graph' });
      let timer = 0;
      this.input.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(() => this.search(this.input.value), 120);
      });
      this.input.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter') {
          const first = this.results.querySelector('button');
          if (first) first.click();
        }
      });
      host.append(h('div', { class: 'explorer' }, h('div', { class: 'explorer-left' }, this.input, this.results), h('div', { class: 'explorer-right' }, this.detail, this.graph)));
    },
    search(q) {
      this.results.replaceChildren();
      const raw = q.trim();
      q = raw.toLowerCase();
      if (!q) return;
      // best first: the whole name, the end of a name, the start of a path part, anywhere;
      // then the same case as typed, ONNX nodes and engine layers, shorter names
      const found = [];
      for (const e of this.entries) {
        const at = e.lower.indexOf(q);
        if (at < 0) continue;
        const where = e.lower === q ? 0 : e.lower.endsWith(q) ? 1 : at === 0 || '/ +('.includes(e.lower[at - 1]) ? 2 : 3;
        const kind = e.kind === 'onnx_node' || e.kind === 'engine_layer' ? 0 : 1;
        found.push([where, e.name.includes(raw) ? 0 : 1, kind, e.name.length, e]);
        if (found.length > 20000) break;
      }
      found.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || x[3] - y[3]);
      const total = found.length;
      for (const [, , , , e] of found.slice(0, 60)) {
        this.results.append(
          h('li', null, h('button', { type: 'button', class: 'result', dataset: { node: String(e.node) }, title: e.name, onclick: () => this.select(e.node, true) }, h('span', { class: 'kind k-' + e.kind }, KIND_LABEL[e.kind]), ' ', clip(e.name, 120)))
        );
      }
      if (!total) this.results.append(h('li', { class: 'none' }, 'nothing matches'));
      else if (total > 60) this.results.append(h('li', { class: 'none' }, total + ' match; showing 60'));
    },
    selectName(name) {
      const nodes = this.byName.get(name);
      if (!nodes) {
        this.detail.replaceChildren(note('No ONNX node or layer named \u201c' + visible(name) + '\u201d in the merge graph.'));
        doc.getElementById('explorer').scrollIntoView({ block: 'start' });
        return;
      }
      // an ONNX node before a layer of the same name, an engine layer before an intermediate
      const order = ['onnx_node', 'engine_layer', 'intermediate', 'onnx_initializer'];
      const pick = nodes.slice().sort((a, b) => order.indexOf(this.kindOf(a)) - order.indexOf(this.kindOf(b)))[0];
      this.select(pick, false);
    },
    select(node, fromSearch) {
      const name = str(this.G.nodes.name[node]);
      const kind = this.kindOf(node);
      if (fromSearch) history.pushState(null, '', '#explore=' + encodeURIComponent(name));
      this.detail.replaceChildren();
      const inward = kind === 'engine_layer' || (kind === 'intermediate' && !this.fate.has(node));
      if (inward) this.showLayer(node, name, kind);
      else this.showNode(node, name, kind);
      this.drawAround(node, inward ? 'in' : 'out');
      const section = doc.getElementById('explorer');
      if (section && !fromSearch) section.scrollIntoView({ block: 'start' });
    },
    stepLine(rel, source, target, pass, line, ev) {
      const parts = [h('span', { class: 'rel' }, rel), ' ', exploreLink(target, clip(target, 160))];
      if (pass && !(rel === 'removed by' && pass === target)) parts.push(' by ', h('code', null, pass));
      if (ev === 'pass') parts.push(' (inferred: the pass ran on it at line ', lineLink(line), ' and printed nothing)');
      else if (ev === 'dataflow') parts.push(' (inferred: its only reader)');
      else if (line) parts.push(' (line ', lineLink(line), ')');
      else parts.push(' (from the ' + ev + ')');
      return parts;
    },
    showNode(node, name, kind) {
      const G = this.G;
      const op = str(G.nodes.op[node]);
      const k = this.fate.get(node);
      const head = h('h3', { class: 'picked' }, h('span', { class: 'kind k-' + kind }, KIND_LABEL[kind]), ' ', name, op ? ' [' + op + ']' : '');
      this.detail.append(head);
      if (k === undefined) {
        // an initializer: where its edges go
        const outs = this.out[node];
        if (!outs.length) this.detail.append(note('No step of the log mentions it.'));
        const list = h('ul', { class: 'steps' });
        for (const e of outs) {
          const E = G.edges;
          list.append(h('li', null, this.stepLine(G.relations[E.rel[e]], name, str(G.nodes.name[E.t[e]]), str(E.pass[e]), E.line[e], G.evidence[E.ev[e]])));
        }
        this.detail.append(list);
        return;
      }
      const F = G.fates;
      const fateKind = G.fateKinds[F.kind[k]];
      this.detail.append(h('p', { class: 'fate' }, 'fate: ', h('span', { class: 'fate-kind f-' + fateKind, id: 'explorer-fate' }, fateKind), F.reason[k] !== null ? [' \u2014 ', str(F.reason[k])] : null));
      const steps = F.steps[k];
      const list = h('ol', { class: 'steps', id: 'explorer-steps' });
      const E = G.edges;
      for (const e of steps) {
        const rel = G.relations[E.rel[e]];
        if (rel === 'registered as') continue;
        list.append(h('li', null, this.stepLine(rel, str(G.nodes.name[E.s[e]]), str(G.nodes.name[E.t[e]]), str(E.pass[e]), E.line[e], G.evidence[E.ev[e]])));
      }
      if (list.childNodes.length) this.detail.append(list);
      const finals = F.finals[k].filter((n) => n >= 0);
      if (finals.length) {
        const items = finals.map((n) => {
          const idx = G.nodes.layer[n];
          const label = str(G.nodes.name[n]);
          return h('li', null, idx !== null && D.layers ? layerLink(idx, 'layer ' + idx) : 'layer', ': ', exploreLink(label, clip(label, 160)));
        });
        this.detail.append(h('div', { class: 'finals' }, h('b', null, 'final: '), h('ul', null, items)));
      }
    },
    // the ONNX nodes and the steps inside an engine layer: what merged into it, walking the
    // merge graph back along the edges that carry a node's identity (trtlog.provenance)
    provenance(node) {
      const G = this.G;
      const E = G.edges;
      const seen = new Set([node]);
      const stack = [node];
      while (stack.length) {
        const n = stack.pop();
        for (const e of this.in[n]) {
          if (!this.flows.has(E.rel[e])) continue;
          const s = E.s[e];
          if (!seen.has(s)) {
            seen.add(s);
            stack.push(s);
          }
        }
      }
      const nodes = [];
      const inits = [];
      const steps = [];
      for (const n of seen) {
        const kind = this.kindOf(n);
        if (kind === 'onnx_node') nodes.push(n);
        else if (kind === 'onnx_initializer') inits.push(n);
        for (const e of this.in[n]) if (this.flows.has(E.rel[e]) && seen.has(E.s[e])) steps.push(e);
      }
      nodes.sort((a, b) => (G.nodes.order[a] ?? 0) - (G.nodes.order[b] ?? 0) || (str(G.nodes.name[a]) < str(G.nodes.name[b]) ? -1 : 1));
      inits.sort((a, b) => (str(G.nodes.name[a]) < str(G.nodes.name[b]) ? -1 : 1));
      steps.sort((a, b) => (E.line[a] === 0) - (E.line[b] === 0) || E.line[a] - E.line[b] || (str(G.nodes.name[E.s[a]]) < str(G.nodes.name[E.s[b]]) ? -1 : 1));
      return { seen: seen, nodes: nodes, inits: inits, steps: steps };
    },
    showLayer(node, name, kind) {
      const G = this.G;
      const E = G.edges;
      const idx = G.nodes.layer[node];
      this.detail.append(h('h3', { class: 'picked' }, h('span', { class: 'kind k-' + kind }, KIND_LABEL[kind]), ' ', name));
      if (kind === 'intermediate') {
        const outs = this.out[node].map((e) => [G.relations[E.rel[e]], str(G.nodes.name[E.t[e]]), str(E.pass[e]), E.line[e], G.evidence[E.ev[e]]]);
        if (outs.length) this.detail.append(h('p', null, h('b', null, 'then')), h('ul', { class: 'steps' }, outs.map((o) => h('li', null, this.stepLine(o[0], name, o[1], o[2], o[3], o[4])))));
        else this.detail.append(note('Nothing the log prints follows from this layer.'));
        if (!this.G.originalFates && !this.in[node].length) {
          this.detail.append(note('The page holds the fates of ONNX nodes; this layer is one of ' + this.G.originals.toLocaleString('en') + ' that no parser line ties to a node, too many to hold each one\u2019s fate: the steps above and the graph below show what became of it (trtlog explain --node gives its fate).'));
        }
      }
      if (idx !== null && D.layers) this.detail.append(h('p', null, layerLink(idx, 'layer ' + idx + ' in the layers table')));
      const p = this.provenance(node);
      const list = h('ol', { class: 'onnx-nodes', id: 'explorer-nodes' });
      for (const n of p.nodes) {
        const op = str(G.nodes.op[n]);
        const label = str(G.nodes.name[n]);
        list.append(h('li', { dataset: { name: label } }, exploreLink(label), op ? ' [' + op + ']' : '', op === 'Constant' ? ' (a constant folded in)' : ''));
      }
      this.detail.append(h('p', null, h('b', null, p.nodes.length ? 'ONNX nodes (' + p.nodes.length + ')' : 'no ONNX node: the log shows no parser line for what this layer holds')), list);
      if (p.inits.length) this.detail.append(h('p', null, h('b', null, 'initializers: '), p.inits.slice(0, 50).map((n, k) => [k ? ', ' : '', h('code', null, str(G.nodes.name[n]))])));
      if (p.steps.length) {
        const steps = h('ol', { class: 'steps' });
        for (const e of p.steps.slice(0, 400)) {
          steps.append(h('li', null, exploreLink(str(G.nodes.name[E.s[e]]), clip(str(G.nodes.name[E.s[e]]), 120)), ' ', this.stepLine(G.relations[E.rel[e]], '', str(G.nodes.name[E.t[e]]), str(E.pass[e]), E.line[e], G.evidence[E.ev[e]])));
        }
        this.detail.append(h('p', null, h('b', null, 'built by')), steps);
      }
    },
    // the neighbourhood: what the picked item became (out) or came from (in), nearest first
    drawAround(node, direction) {
      const G = this.G;
      const E = G.edges;
      const limit = 60;
      const order = [node];
      const seen = new Set(order);
      for (let k = 0; k < order.length && order.length < limit; k++) {
        const n = order[k];
        const edges = direction === 'out' ? this.out[n] : this.in[n];
        for (const e of edges) {
          const m = direction === 'out' ? E.t[e] : E.s[e];
          if (!seen.has(m) && order.length < limit) {
            seen.add(m);
            order.push(m);
          }
        }
      }
      // the final layers of the picked node's fate belong to its picture too
      const edges = [];
      for (const n of order) for (const e of this.out[n]) if (seen.has(E.t[e])) edges.push(e);
      this.graph.replaceChildren();
      if (typeof dagre === 'undefined') return;
      const g = new dagre.graphlib.Graph({ multigraph: true });
      g.setGraph({ rankdir: 'LR', nodesep: 10, ranksep: 36, marginx: 8, marginy: 8 });
      for (const n of order) {
        const label = clip(str(G.nodes.name[n]), 34);
        g.setNode(String(n), { label: label, width: Math.min(240, label.length * 6.6 + 18), height: 24 });
      }
      edges.forEach((e, k) => g.setEdge(String(E.s[e]), String(E.t[e]), { e: e }, 'e' + k));
      dagre.layout(g);
      const size = g.graph();
      const root = svg('svg', { width: Math.ceil(size.width || 100), height: Math.ceil(size.height || 60), class: 'merge-graph', role: 'img', 'aria-label': 'merge graph around the picked item' });
      root.append(svg('defs', null, svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: '10', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' }, svg('path', { d: 'M 0 0 L 10 5 L 0 10 z' }))));
      for (const key of g.edges()) {
        const data = g.edge(key);
        const e = data.e;
        const d = data.points.map((pt, k) => (k ? 'L' : 'M') + pt.x.toFixed(1) + ' ' + pt.y.toFixed(1)).join(' ');
        const rel = G.relations[E.rel[e]];
        const title = rel + (E.pass[e] !== null ? ' by ' + str(E.pass[e]) : '') + (E.line[e] ? ' (line ' + E.line[e] + ')' : '');
        root.append(svg('path', { d: d, class: 'edge r-' + rel.replace(/\s+/g, '-'), 'marker-end': 'url(#arrow)' }, svg('title', null, title)));
      }
      for (const id of g.nodes()) {
        const n = Number(id);
        const box = g.node(id);
        const kind = this.kindOf(n);
        const name = str(G.nodes.name[n]);
        const group = svg('g', { class: 'node k-' + kind + (n === node ? ' picked' : ''), transform: 'translate(' + (box.x - box.width / 2).toFixed(1) + ',' + (box.y - box.height / 2).toFixed(1) + ')', dataset: { node: id } });
        group.append(svg('title', null, KIND_LABEL[kind] + ': ' + name), svg('rect', { width: box.width, height: box.height, rx: 4 }), svg('text', { x: 9, y: 16 }, box.label));
        if (kind === 'onnx_node' || kind === 'engine_layer' || kind === 'onnx_initializer') {
          group.addEventListener('click', () => this.select(n, true));
          group.classList.add('clickable');
        }
        root.append(group);
      }
      const legend = h('p', { class: 'legend' }, ['onnx_node', 'onnx_initializer', 'intermediate', 'engine_layer', 'pass'].map((k) => h('span', { class: 'kind k-' + k }, KIND_LABEL[k])), order.length >= limit ? ' (the ' + limit + ' nearest shown)' : '');
      this.graph.append(legend, h('div', { class: 'scroll-x' }, root));
    },
  };

  const KIND_LABEL = { onnx_node: 'ONNX node', onnx_initializer: 'initializer', intermediate: 'layer (intermediate)', engine_layer: 'engine layer', pass: 'pass' };

  // -- Layers --------------------------------------------------------------------------------

  // bytes as KiB / MiB / GiB, three significant digits
  const size = (b) => (b === null || b === undefined ? '' : b < 1024 ? b + ' B' : b < 1048576 ? num(b / 1024, 3) + ' KiB' : b < 1073741824 ? num(b / 1048576, 3) + ' MiB' : num(b / 1073741824, 3) + ' GiB');

  // the footprint of the engine: weights and activations by layer type and precision
  function footprintBlock(F) {
    const box = h('div', { id: 'layers-footprint', class: 'footprint' }, h('h3', null, 'Footprint: weights ' + (F.weights === null ? 'unknown' : size(F.weights)) + ', activations written ' + (F.acts === null ? 'unknown' : size(F.acts))));
    box.append(note('Sums over layers (a tensor counted at the layer that writes it, vectorized channels padded); not the device memory, which reuses activation buffers between layers.'));
    const table = (title, rows, id) => {
      const t = h('table', { class: 'grid', id: id });
      t.append(h('thead', null, h('tr', null, [title, 'layers', 'weights', 'activations'].map((x) => h('th', null, x)))));
      const b = h('tbody');
      for (const r of rows.slice(0, 12)) b.append(h('tr', null, h('td', null, r[0]), h('td', { class: 'num' }, String(r[1])), h('td', { class: 'num' }, size(r[2])), h('td', { class: 'num' }, size(r[3]))));
      t.append(b);
      return t;
    };
    box.append(h('div', { class: 'charts' }, table('layer type', F.byType, 'footprint-by-type'), table('precision', F.byPrecision, 'footprint-by-precision')));
    if (F.largest.length) {
      const t = h('table', { class: 'grid', id: 'footprint-largest' });
      t.append(h('thead', null, h('tr', null, ['#', 'layer', 'tensor', 'dims', 'type', 'size'].map((x) => h('th', null, x)))));
      const b = h('tbody');
      for (const r of F.largest) b.append(h('tr', null, h('td', { class: 'num' }, String(r[0])), h('td', null, r[1]), h('td', null, r[2]), h('td', null, r[3]), h('td', null, r[4] || ''), h('td', { class: 'num' }, size(r[5]))));
      t.append(b);
      box.append(h('p', null, h('b', null, 'Largest activations')), h('div', { class: 'scroll-x' }, t));
    }
    return box;
  }

  const Layers = {
    render(host) {
      host.replaceChildren();
      const L = D.layers;
      const t = L.table;
      const timed = L.timed;
      const total = L.total;
      const charts = h('div', { class: 'charts' });
      const groupRows = (rows, label) =>
        rows.slice(0, 15).map((r) => ({ label: r[0], value: timed ? r[2] || 0 : r[1], text: timed ? ms(r[2]) + ' \u00b7 ' + plural(r[1], 'layer') : plural(r[1], 'layer'), title: r[0] + ': ' + r[1] + ' layers, ' + ms(r[2]) }));
      charts.append(barChart(groupRows(L.byType), { title: timed ? 'Time by layer type' : 'Layers by type (no profile: counts, not time)', width: 520, labelWidth: 170, cls: 'by-type' }));
      charts.append(barChart(groupRows(L.byPrecision), { title: timed ? 'Time by precision' : 'Layers by precision (no profile: counts, not time)', width: 520, labelWidth: 170, cls: 'by-precision' }));
      host.append(charts);
      const parts = [t.name.length + ' layers'];
      if (total !== null) parts.push(ms(total) + ' per inference (profile ' + L.profile + ')');
      else parts.push('no profile: pass --profile (an --exportProfile JSON) or build with --dumpProfile to see times');
      host.append(note(parts.join('; ') + '.'));
      for (const n of L.notes) host.append(note('Note: ' + n));
      if (L.footprint && (L.footprint.weights !== null || L.footprint.acts !== null)) host.append(footprintBlock(L.footprint));
      // why one build "has 2 layers" and another "has 89": each Myelin region, said once
      const regions = L.myelin.filter((g) => g.kernels.length);
      if (regions.length) {
        host.append(h('ul', { class: 'myelin-notes' }, regions.slice(0, 8).map((g) => h('li', null, g.summary))));
      }
      const rows = [];
      for (let i = 0; i < t.name.length; i++) {
        rows.push({
          i: t.index[i],
          name: str(t.name[i]),
          type: str(t.type[i]),
          precision: str(t.precision[i]),
          io: (str(t.inTypes[i]) || '?') + ' \u2192 ' + (str(t.outTypes[i]) || '?'),
          ms: t.ms[i],
          share: t.share[i],
          tactic: str(t.kernel[i]) || str(t.tactic[i]),
          nodes: t.nodes[i],
          nodesText: t.nodes[i].map(str).join(', '),
          module: str(t.module[i]),
          weights: t.weights[i],
          acts: t.acts[i],
          ops: null,
        });
      }
      this.rows = rows;
      // Myelin kernels folded under their region
      const groups = [];
      const inGroup = new Set();
      for (const g of L.myelin) {
        if (!g.kernels.length) continue;
        const head = {
          i: rows[g.kernels[0]].i,
          name: g.label,
          type: Object.entries(g.types).map(([k, n]) => k + ' \u00d7' + n).join(', '),
          precision: '',
          io: '',
          ms: g.ms,
          share: null,
          tactic: g.kernels.length + ' kernels',
          weights: null,
          acts: null,
          nodes: [],
          nodesText: g.nodes + ' ONNX nodes',
          module: '',
          children: [],
          summary: g.summary,
          cls: 'myelin',
        };
        for (const k of g.kernels) {
          const row = rows[k];
          row.parent = head;
          row.ops = g.ops[String(k)] || null;
          head.children.push(row);
          inGroup.add(k);
        }
        groups.push([g.kernels[0], head]);
      }
      const top = [];
      const headAt = new Map(groups);
      rows.forEach((row, k) => {
        if (headAt.has(k)) top.push(headAt.get(k));
        if (!inGroup.has(k)) top.push(row);
      });
      const columns = [
        { key: 'i', label: '#', width: '4.5em', num: true, value: (r) => r.i, text: (r) => (r.children ? '' : String(r.i)) },
        { key: 'name', label: 'name', width: 'minmax(16em, 3fr)', value: (r) => r.name, text: (r) => (r.children ? (this.table && this.table.expanded.has(r) ? '\u25be ' : '\u25b8 ') + r.name : (r.parent ? '\u2003' : '') + r.name + (r.ops ? '  \u00b7 ' + r.ops.join(', ') : '')), title: (r) => r.summary || r.name + (r.ops ? '\nops: ' + r.ops.join(', ') : '') },
        { key: 'type', label: 'type', width: 'minmax(7em, 1fr)', value: (r) => r.type, text: (r) => r.type },
        { key: 'precision', label: 'precision', width: '7em', value: (r) => r.precision, text: (r) => r.precision },
        { key: 'io', label: 'in \u2192 out', width: 'minmax(8em, 1fr)', value: (r) => r.io, text: (r) => r.io },
        { key: 'ms', label: 'ms', width: '6.5em', num: true, value: (r) => r.ms, text: (r) => (r.ms === null ? '' : num(r.ms)) },
        { key: 'share', label: '%', width: '5em', num: true, value: (r) => r.share, text: (r) => (r.share === null ? '' : num(r.share, 3)) },
        { key: 'weights', label: 'weights', width: '6.5em', num: true, value: (r) => r.weights, text: (r) => size(r.weights) },
        { key: 'acts', label: 'activations', width: '7em', num: true, value: (r) => r.acts, text: (r) => size(r.acts) },
        { key: 'tactic', label: 'tactic / kernel', width: 'minmax(8em, 1.5fr)', value: (r) => r.tactic, text: (r) => r.tactic },
        { key: 'nodes', label: 'ONNX nodes', width: 'minmax(8em, 1.5fr)', value: (r) => r.nodesText, text: (r) => (r.children ? r.nodesText : r.nodes.length ? r.nodes.length + ': ' + r.nodesText : ''), title: (r) => r.nodesText },
        { key: 'module', label: 'module', width: 'minmax(7em, 1.2fr)', value: (r) => r.module, text: (r) => r.module, placeholder: '/a/b or /a/*' },
      ];
      this.table = new Table(host, { id: 'layers-table', columns: columns, rows: rows, groups: top, height: 460, onClick: (r) => this.show(r) });
      this.detail = h('div', { id: 'layer-detail', class: 'detail' }, note('Click a row for the layer\u2019s details.'));
      host.append(this.detail);
    },
    show(r) {
      const t = D.layers.table;
      const k = this.rows.indexOf(r);
      const items = [
        ['layer', String(r.i)],
        ['name', r.name],
        ['type', r.type],
        ['precision', r.precision],
        ['in \u2192 out types', r.io],
        ['output layouts', str(t.outLayouts[k])],
        ['output dims', str(t.dims[k])],
        ['time', r.ms === null ? 'unknown' + (t.reason[k] !== null ? ': ' + str(t.reason[k]) : '') : ms(r.ms) + ' (' + pct(r.share) + ')'],
        ['tactic', str(t.tactic[k])],
        ['kernel', str(t.kernel[k])],
        ['origin', str(t.origin[k])],
        ['ONNX nodes from', str(t.nodeSource[k])],
      ];
      const dl = h('dl');
      for (const [key, value] of items) if (value) dl.append(h('dt', null, key), h('dd', null, value));
      if (r.module) dl.append(h('dt', null, 'module'), h('dd', null, h('a', { href: '#module=' + encodeURIComponent(r.module) }, r.module)));
      if (r.ops) dl.append(h('dt', null, 'Myelin ops'), h('dd', null, r.ops.join(', ')));
      if (r.parent) dl.append(h('dt', null, 'Myelin region'), h('dd', null, r.parent.name));
      const nodes = h('ul', { class: 'onnx-nodes' }, r.nodes.slice(0, 200).map((n) => h('li', null, D.graph ? exploreLink(str(n)) : str(n))));
      this.detail.replaceChildren(
        h('h3', null, 'Layer ' + r.i),
        D.graph ? h('p', null, exploreLink(r.name, 'what is inside this layer, pass by pass (merge explorer)')) : null,
        dl,
        // (replaceChildren takes nodes, not an array: spread the pair, or nothing)
        ...(r.nodes.length ? [h('p', null, h('b', null, r.nodes.length + ' ONNX node(s)')), nodes] : [])
      );
    },
    goto(i) {
      if (!this.table) return;
      const section = doc.getElementById('layers');
      section.scrollIntoView({ block: 'start' });
      const row = this.rows.find((r) => r.i === i);
      if (this.table.goto((r) => r.i === i && !r.children) && row) this.show(row);
    },
    filterModule(path) {
      if (!this.table) return;
      this.table.setFilter('module', path === '/' ? '' : path + '/*');
      doc.getElementById('layers').scrollIntoView({ block: 'start' });
    },
  };

  // -- Module tree ---------------------------------------------------------------------------

  const Modules = {
    render(host) {
      host.replaceChildren();
      const root = D.modules;
      this.total = root[4];
      if (!root[7].length) {
        host.append(note('The layers name no ONNX module: the tree has only its root (' + root[1] + ' layers).'));
      }
      host.append(h('p', { class: 'note' }, 'Time is each module\u2019s layers rolled up' + (this.total === null ? ' (no profile: layer counts only)' : ', ' + ms(this.total) + ' in all') + '; \u201csplit\u201d is an even share of a layer whose nodes lie in several modules (a Myelin region), an estimate. \u201clayers\u201d opens them in the layers table. A module whose nodes all run inside layers of its parent (fused with its siblings) has no layer of its own and is not listed.'));
      this.tree = h('div', { class: 'tree', id: 'module-tree' });
      host.append(this.tree);
      this.tree.append(this.node(root, '', 0, true));
    },
    node(m, parentPath, depth, open) {
      const path = depth === 0 ? '/' : (parentPath === '/' ? '' : parentPath) + '/' + str(m[0]);
      const kids = m[7];
      const time = m[4];
      const share = this.total ? (100 * (time || 0)) / this.total : null;
      const mix = Object.entries(m[6]).sort((a, b) => b[1] - a[1]);
      const summary = h(
        'summary',
        { class: kids.length ? '' : 'leaf' },
        h('span', { class: 'mname' }, depth === 0 ? '/ (the model)' : str(m[0])),
        h('span', { class: 'mstat', title: m[8] ? plural(m[8], 'submodule') + ' whose nodes all run in layers of this module: not listed' : null }, plural(m[1], 'layer') + (m[2] && m[2] !== m[1] ? ' (' + m[2] + ' own)' : '')),
        h('span', { class: 'mtime' }, time === null ? '' : ms(time) + (share !== null ? ' \u00b7 ' + num(share, 3) + '%' : '') + (m[5] ? ' (split ' + num(m[5]) + ')' : '')),
        h('span', { class: 'mbar' }, share !== null ? h('span', { class: 'fill', style: null }) : null),
        h('span', { class: 'mix' }, mix.map(([p, n]) => h('span', { class: 'prec p-' + p.replace(/[^A-Za-z0-9]/g, ''), title: n + ' layer(s) in ' + p }, p + ' ' + n))),
        h('a', { href: '#module=' + encodeURIComponent(path), class: 'mlayers', title: 'show these layers in the layers table', dataset: { layers: '1' } }, 'layers')
      );
      const fill = summary.querySelector('.fill');
      if (fill) fill.style.width = Math.max(0.5, Math.min(100, share)) + '%';
      const el = h('details', { class: 'module', dataset: { path: path } }, summary);
      let filled = false;
      const fillKids = () => {
        if (filled) return;
        filled = true;
        const box = h('div', { class: 'kids' });
        for (const kid of kids) box.append(this.node(kid, path, depth + 1, false));
        el.append(box);
      };
      el.addEventListener('toggle', () => {
        if (el.open) fillKids();
      });
      if (open && kids.length) {
        fillKids();
        el.open = true;
      }
      summary.querySelector('.mlayers').addEventListener('click', (ev) => {
        ev.preventDefault();
        ev.stopPropagation();
        Layers.filterModule(path);
      });
      return el;
    },
    open(path) {
      const parts = path.split('/').filter((p) => p);
      let el = this.tree.querySelector('details');
      let current = '/';
      for (const part of parts) {
        if (!el.open) el.open = true;
        el.dispatchEvent(new Event('toggle'));
        current = (current === '/' ? '' : current) + '/' + part;
        const next = Array.from(el.querySelectorAll(':scope > .kids > details')).find((d) => d.dataset.path === current);
        if (!next) break;
        el = next;
      }
      reveal(el.querySelector('summary'));
    },
  };

  // -- Tactics -------------------------------------------------------------------------------

  const Tactics = {
    render(host) {
      host.replaceChildren();
      const T = D.tactics;
      const Ly = T.layers;
      const rowsOf = Ly.layer.map(() => []);
      T.layer.forEach((li, k) => rowsOf[li].push(k));
      const Eng = T.engine;
      const picked = new Map();
      Eng.layer.forEach((l, k) => picked.set(str(l), k));
      const slowest = Eng.layer.map((l, k) => k).filter((k) => Eng.ms[k] !== null).sort((a, b) => Eng.ms[b] - Eng.ms[a]).slice(0, 15);
      const sel = T.selection;
      host.append(
        note(
          T.rows.toLocaleString('en') + ' tactic rows for ' + Ly.layer.length.toLocaleString('en') + ' layers' + (sel !== null && sel !== undefined ? '; tactic selection took ' + num(sel) + ' s (the log\u2019s own figure)' : '') + '.' + (T.perLayer ? ' The page keeps per layer the chosen, fastest, cached and engine rows and the ' + T.perLayer + ' fastest others (' + T.kept.toLocaleString('en') + ' rows); the counts are of every row, and the raw log holds them all.' : '')
        )
      );
      if (slowest.length) {
        host.append(
          barChart(
            slowest.map((k) => ({ label: str(Eng.layer[k]), value: Eng.ms[k], text: ms(Eng.ms[k]) + (Eng.known[k] ? '' : ' (fastest chosen)'), href: Eng.line[k] ? '#L' + Eng.line[k] : null, title: str(Eng.layer[k]) + ': ' + (str(Eng.kernel[k]) || Eng.tactic[k] || '') + ', ' + ms(Eng.ms[k]) + (Eng.known[k] ? ' (the engine runs it)' : ' (the log does not say which combination the engine kept; the fastest chosen tactic)') })),
            { title: 'Slowest selections: the tactic each layer ends up with', labelWidth: 300, cls: 'slowest' }
          )
        );
      }
      const rows = Ly.layer.map((l, i) => {
        const name = l === null ? '(no layer)' : str(l);
        const k = picked.get(name);
        return {
          rows: rowsOf[i],
          name: name,
          timed: Ly.timed[i],
          skipped: Ly.skipped[i],
          best: Ly.best[i],
          reformat: Ly.reformat[i],
          tactic: k === undefined ? '' : str(Eng.kernel[k]) || Eng.tactic[k] || '',
          ms: k === undefined ? null : Eng.ms[k],
          known: k === undefined ? '' : Eng.known[k] ? 'engine' : 'fastest chosen',
          line: Ly.first[i],
          last: Ly.last[i],
          cls: Ly.reformat[i] ? 'reformat' : '',
        };
      });
      const columns = [
        { key: 'name', label: 'layer', width: 'minmax(16em, 3fr)', value: (r) => r.name, text: (r) => r.name + (r.reformat ? '  (reformat)' : '') },
        { key: 'timed', label: 'timed', width: '5em', num: true, value: (r) => r.timed, text: (r) => String(r.timed) },
        { key: 'skipped', label: 'skipped', width: '5.5em', num: true, value: (r) => r.skipped, text: (r) => String(r.skipped) },
        { key: 'best', label: 'fastest ms', width: '7em', num: true, value: (r) => r.best, text: (r) => (r.best === null ? '' : num(r.best)) },
        { key: 'tactic', label: 'engine\u2019s tactic', width: 'minmax(10em, 2fr)', value: (r) => r.tactic, text: (r) => r.tactic },
        { key: 'ms', label: 'its ms', width: '6.5em', num: true, value: (r) => r.ms, text: (r) => (r.ms === null ? '' : num(r.ms)) },
        { key: 'known', label: 'source', width: '8em', value: (r) => r.known, text: (r) => r.known, help: '\u201cengine\u201d: the layer dump shows the engine runs it; \u201cfastest chosen\u201d: the log does not say which format combination the engine kept' },
        { key: 'line', label: 'lines', width: '9em', num: true, filter: false, value: (r) => r.line, text: (r) => h('span', null, lineLink(r.line), r.last !== r.line ? ['\u2013', lineLink(r.last)] : null) },
      ];
      this.table = new Table(host, { id: 'tactics-table', columns: columns, rows: rows, height: 360, onClick: (r) => this.show(r) });
      this.detail = h('div', { id: 'tactic-detail', class: 'detail' }, note('Click a layer for its candidates.'));
      host.append(this.detail);
    },
    show(r) {
      const T = D.tactics;
      const table = h('table', { class: 'grid candidates' });
      table.append(h('thead', null, h('tr', null, ['line', 'runner', 'format combination', 'tactic', 'kernel', 'ms', ''].map((t) => h('th', null, t)))));
      const body = h('tbody');
      for (const k of r.rows.slice(0, 2000)) {
        const f = T.flags[k];
        const marks = [];
        if (f & 16) marks.push('\u25c6 engine');
        if (f & 2) marks.push('\u2605 chosen');
        if (f & 1) marks.push('fastest');
        if (f & 8) marks.push('cached');
        if (f & 4) marks.push('skipped' + (T.reason[k] !== null ? ': ' + str(T.reason[k]) : ''));
        body.append(
          h('tr', { class: f & 16 ? 'in-engine' : f & 2 ? 'chosen' : '' }, h('td', null, lineLink(T.line[k])), h('td', null, str(T.runner[k])), h('td', null, str(T.combo[k])), h('td', null, h('code', null, T.tactic[k] || '')), h('td', { class: 'kernel' }, str(T.kernel[k])), h('td', { class: 'num' }, T.ms[k] === null ? '' : num(T.ms[k])), h('td', null, marks.join(', ')))
        );
      }
      table.append(body);
      const shown = Math.min(r.rows.length, 2000);
      const all = r.timed + r.skipped;
      this.detail.replaceChildren(h('h3', null, r.name), note(r.timed + ' timed, ' + r.skipped + ' skipped' + (shown < all ? '; ' + shown + ' of them shown here, every one in the raw log (lines ' + r.line + '\u2013' + r.last + ')' : '')), h('div', { class: 'scroll-x' }, table));
    },
  };

  // -- Memory --------------------------------------------------------------------------------

  const Memory = {
    render(host) {
      host.replaceChildren();
      const M = D.memory;
      const n = M.line.length;
      const stages = [];
      const seen = new Map();
      for (let k = 0; k < n; k++) {
        const kind = str(M.kind[k]);
        const metric = str(M.metric[k]);
        if ((kind === 'memory_change' || kind === 'memory_snapshot') && (metric === 'cpu' || metric === 'gpu')) {
          const key = M.line[k];
          if (!seen.has(key)) {
            seen.set(key, { stage: str(M.stage[k]), line: key, cpu: null, gpu: null });
            stages.push(seen.get(key));
          }
          seen.get(key)[metric] = (seen.get(key)[metric] || 0) + (M.mib[k] || 0);
        }
      }
      if (stages.length) {
        const charts = h('div', { class: 'charts' });
        for (const metric of ['gpu', 'cpu']) {
          const rows = stages.filter((s) => s[metric] !== null).map((s) => ({ label: s.stage, value: s[metric], text: num(s[metric]) + ' MiB', href: '#L' + s.line, title: s.stage + ': ' + metric.toUpperCase() + ' ' + num(s[metric]) + ' MiB in use (line ' + s.line + ')' }));
          if (rows.length) charts.append(barChart(rows, { title: metric.toUpperCase() + ' memory in use after each stage', width: 560, labelWidth: 260, cls: 'mem-' + metric }));
        }
        host.append(charts);
      }
      const table = h('table', { class: 'grid memory', id: 'memory-table' });
      table.append(h('thead', null, h('tr', null, ['line', 'stage', 'figure', 'metric', 'layer', 'MiB', 'bytes'].map((t) => h('th', null, t)))));
      const body = h('tbody');
      for (let k = 0; k < Math.min(n, 3000); k++) {
        body.append(h('tr', null, h('td', null, lineLink(M.line[k])), h('td', null, str(M.stage[k])), h('td', null, str(M.kind[k])), h('td', null, str(M.metric[k])), h('td', null, str(M.layer[k])), h('td', { class: 'num' }, M.mib[k] === null ? '' : num(M.mib[k])), h('td', { class: 'num' }, M.bytes[k] === null ? '' : String(M.bytes[k]))));
      }
      table.append(body);
      host.append(h('div', { class: 'scroll-x tall' }, table));
      if (n > 3000) host.append(note('The first 3,000 of ' + n + ' figures shown.'));
    },
  };

  // -- Comparison ----------------------------------------------------------------------------

  const Compare = {
    render(host) {
      host.replaceChildren();
      const C = D.cmp;
      const head = h('div', { class: 'cmp-head' }, h('p', null, h('b', null, 'A (reference): '), C.a), h('p', null, h('b', null, 'B (this build): '), C.b));
      const markers = h('p', { class: 'markers', id: 'cmp-markers' }, Object.entries(C.markers).map(([m, n]) => h('span', { class: 'marker m' + MARK[m] }, m + ' ' + n + ' ')), ' (= the same layer, ~ aligned but different, - only in A, + only in B)');
      head.append(markers);
      const [ta, tb, dt] = C.total;
      if (ta !== null || tb !== null) head.append(h('p', null, 'Layer time per inference: A ' + ms(ta) + ', B ' + ms(tb) + (dt !== null ? ' (' + signed(dt) + (ta ? ', ' + (dt > 0 ? '+' : '') + num((100 * dt) / ta, 3) + '%' : '') + ')' : '')));
      else head.append(note('No layer times on either side: pass --profile and --reference-profile (or builds with --dumpProfile) for the time columns.'));
      const [paired, possible] = C.alignment;
      const ways = Object.entries(C.matches).map(([k, n]) => k + ' ' + n).join(', ');
      if (C.aligned && !C.failed && ways) head.append(h('p', { id: 'cmp-matched' }, paired + ' of ' + possible + ' computing layers found a counterpart; pairs matched by ' + ways + ' (name: shared ONNX nodes; structure: the same kind of op whose neighbours pair; shape: the same kind of op and shape at about the same place).'));
      for (const n of C.notes) head.append(note('Note: ' + n));
      host.append(head);
      if (C.failed) {
        host.append(h('div', { id: 'cmp-failed', class: 'status failed' }, h('strong', null, 'Alignment failed: '), (C.reason || paired + ' of ' + possible + ' computing layers found a counterpart by name, structure or shape') + '. These two engines do not look like builds of one model, so no per-layer deltas, precision or tactic changes are shown; the totals below still compare.'));
      }
      this.totals(host, C);
      if (!C.failed) {
        this.groups(host, C);
        this.changes(host, C);
        this.modules(host, C);
      }
      if (C.aligned) this.rows(host, C);
      // per ONNX node needs names both sides share: not so when structure paired the layers
      if (!C.failed && (C.matches.name || 0) > 0) this.onnx(host, C);
      this.passes(host, C);
    },
    totals(host, C) {
      const box = h('div', { id: 'cmp-totals', class: 'charts' });
      if (C.totals.length) {
        const t = h('table', { class: 'grid', id: 'cmp-run-totals' });
        t.append(h('thead', null, h('tr', null, ['run and build', 'A', 'B', 'B / A'].map((x) => h('th', null, x)))));
        const b = h('tbody');
        for (const [metric, unit, a, bv, better] of C.totals) {
          const ratio = a !== null && bv !== null && a !== 0 ? bv / a : null;
          const good = ratio === null || ratio === 1 ? '' : (ratio > 1) === (better === 'higher') ? 'better' : 'worse';
          const fmt = (v) => (v === null ? '–' : unit === 'bytes' ? size(v) : num(v) + ' ' + unit);
          b.append(h('tr', null, h('td', null, metric), h('td', { class: 'num' }, fmt(a)), h('td', { class: 'num' }, fmt(bv)), h('td', { class: 'num ' + good }, ratio === null ? '' : num(ratio, 3) + '×')));
        }
        t.append(b);
        box.append(t);
      }
      const table = (title, rows, id) => {
        const t = h('table', { class: 'grid', id: id });
        t.append(h('thead', null, h('tr', null, [title, 'layers A', 'layers B', 'A ms', 'B ms'].map((x) => h('th', null, x)))));
        const b = h('tbody');
        for (const r of rows.slice(0, 15)) b.append(h('tr', null, h('td', null, r[0]), h('td', { class: 'num' }, String(r[1])), h('td', { class: 'num' }, String(r[2])), h('td', { class: 'num' }, r[3] === null ? '–' : num(r[3])), h('td', { class: 'num' }, r[4] === null ? '–' : num(r[4]))));
        t.append(b);
        return t;
      };
      if (C.byPrecision.length) box.append(table('precision', C.byPrecision, 'cmp-by-precision'));
      if (C.byType.length) box.append(table('layer type', C.byType, 'cmp-by-type'));
      if (box.childNodes.length) host.append(h('h3', null, 'Totals: run and build, time by precision and layer type'), box);
    },
    groups(host, C) {
      const box = h('div', { id: 'cmp-groups', class: 'groups' }, h('h3', null, 'Node groups fused differently (' + C.groups.length + ')'));
      if (!C.groups.length) box.append(note('Every ONNX node group was fused the same way on both sides.'));
      for (const g of C.groups) {
        const qdq = new Set(g.qdq);
        box.append(
          h(
            'article',
            { class: 'group g-' + g.kind, id: 'cmp-group-' + g.id, dataset: { kind: g.kind } },
            h('header', null, h('span', { class: 'badge ' + g.kind }, g.kind), ' ', h('span', { class: 'describe' }, g.text)),
            h('div', { class: 'sides' }, h('div', null, h('b', null, 'A: '), g.a.map((i, k) => h('div', null, h('a', { href: '#cmp-a-' + i }, '[' + i + ']'), ' ', str(g.namesA[k])))), h('div', null, h('b', null, 'B: '), g.b.map((i, k) => h('div', null, h('a', { href: '#cmp-b-' + i }, '[' + i + ']'), ' ', str(g.namesB[k]))))),
            h('div', { class: 'group-nodes' }, h('b', null, 'nodes: '), g.nodes.slice(0, 80).map((n) => h('code', { class: 'name' + (qdq.has(n) ? ' qdq' : '') }, str(n))), g.nodes.length > 80 ? ' \u2026' : ''),
            g.qdq.length ? h('div', { class: 'group-qdq' }, h('b', null, 'Q/DQ nodes on the cut: '), g.qdq.map((n) => h('code', { class: 'name qdq' }, str(n)))) : null
          )
        );
      }
      host.append(box);
    },
    changes(host, C) {
      const box = h('div', { class: 'changes' });
      const trans = Object.entries(C.transitions);
      box.append(h('h3', null, 'Precision changes (' + C.precision.length + ')'));
      if (trans.length) box.append(h('p', null, trans.map(([k, n]) => h('span', { class: 'chip' }, k + ' \u00d7' + n + ' '))));
      if (C.precision.length) {
        const t = h('table', { class: 'grid', id: 'cmp-precision' });
        t.append(h('thead', null, h('tr', null, ['row', 'A', 'B', 'layer', 'A', 'B'].map((x) => h('th', null, x)))));
        const b = h('tbody');
        for (const r of C.precision.slice(0, 500)) b.append(h('tr', null, h('td', null, h('a', { href: '#cmp-row-' + r[0] }, String(r[0]))), h('td', null, String(r[1])), h('td', null, String(r[2])), h('td', null, str(r[3])), h('td', null, r[4]), h('td', null, r[5])));
        t.append(b);
        box.append(h('div', { class: 'scroll-x tall' }, t));
      }
      box.append(h('h3', null, 'Tactic changes (' + C.tactics.length + ')'));
      if (C.tactics.length) {
        const t = h('table', { class: 'grid', id: 'cmp-tactics' });
        t.append(h('thead', null, h('tr', null, ['row', 'layer', 'A tactic', 'B tactic', 'A ms', 'B ms'].map((x) => h('th', null, x)))));
        const b = h('tbody');
        for (const r of C.tactics.slice(0, 500)) b.append(h('tr', null, h('td', null, h('a', { href: '#cmp-row-' + r[0] }, String(r[0]))), h('td', null, str(r[3])), h('td', { class: 'kernel' }, r[4]), h('td', { class: 'kernel' }, r[5]), h('td', { class: 'num' }, num(r[6])), h('td', { class: 'num' }, num(r[7]))));
        t.append(b);
        box.append(h('div', { class: 'scroll-x tall' }, t));
      }
      host.append(box);
    },
    modules(host, C) {
      // a delta chart needs times: layer counts per module are no "slower in B"
      if (C.modules.length < 2 || !C.modules.some((m) => m[5] !== null)) return;
      host.append(h('h3', null, 'Time per module (depth ' + C.moduleDepth + '), biggest change first'));
      const rows = C.modules.filter((m) => m[5] !== null).slice(0, 30).map((m) => ({ label: m[0], value: m[5], text: ms(m[3]) + ' \u2192 ' + ms(m[4]) + ' (' + signed(m[5]) + ')', cls: m[5] > 0 ? 'worse' : 'better', href: '#cmp-module=' + encodeURIComponent(m[0]), title: m[0] + ': A ' + m[1] + ' layers ' + ms(m[3]) + ', B ' + m[2] + ' layers ' + ms(m[4]) }));
      host.append(barChart(rows, { title: 'B minus A per module (red: slower in B)', labelWidth: 260, width: 720, cls: 'modules-delta' }));
    },
    rows(host, C) {
      const R = C.rows;
      const rows = R.step.map((step, k) => ({
        k: k,
        step: step,
        marker: R.marker[k],
        ia: R.ia[k],
        ib: R.ib[k],
        nameA: str(R.nameA[k]),
        nameB: str(R.nameB[k]),
        typeA: str(R.typeA[k]),
        typeB: str(R.typeB[k]),
        precA: str(R.precA[k]),
        precB: str(R.precB[k]),
        module: str(R.moduleB[k]) || str(R.moduleA[k]),
        modules: str(R.moduleA[k]) + ' ' + str(R.moduleB[k]),
        reasons: str(R.reasons[k]),
        group: R.group[k],
        msA: R.msA[k],
        msB: R.msB[k],
        delta: R.delta[k],
        kernelA: str(R.kernelA[k]),
        kernelB: str(R.kernelB[k]),
        match: str(R.match[k]),
        conf: R.conf[k],
        // the fusion and precision a pair changed first: what an FP16-vs-INT8 reader looks for
        why: str(R.reasons[k]) ? str(R.reasons[k]).split('; ').map((x, i) => [/^(fusion|precision) /.test(x) ? 0 : 1, i, x]).sort((x, y) => x[0] - y[0] || x[1] - y[1]).map((x) => x[2]).join('; ') : str(R.why[k]),
        cls: 'm' + MARK[R.marker[k]],
      }));
      this.rowsAll = rows;
      host.append(h('h3', null, 'Aligned rows'));
      const bar = h('div', { class: 'toolbar' });
      const changed = h('input', { type: 'checkbox', id: 'cmp-changed' });
      const module = h('input', { type: 'search', id: 'cmp-module', placeholder: 'module, e.g. /model/stage1 or /model/*' });
      bar.append(h('label', null, changed, ' changed rows only'), ' ', h('label', null, 'module ', module));
      host.append(bar);
      const side = (name, type, prec) => (name ? [h('span', { class: 'ltype' }, type), ' ', h('span', { class: 'lprec' }, prec), ' ', name] : '');
      const columns = [
        { key: 'step', label: '#', width: '4em', num: true, value: (r) => r.step, text: (r) => String(r.step) },
        { key: 'marker', label: '', width: '2.2em', value: (r) => r.marker, text: (r) => r.marker, placeholder: '~' },
        { key: 'ia', label: 'A', width: '4em', num: true, value: (r) => r.ia, text: (r) => (r.ia === null ? '' : String(r.ia)) },
        { key: 'nameA', label: 'A layer', width: 'minmax(14em, 3fr)', value: (r) => r.nameA + ' ' + r.typeA + ' ' + r.precA, text: (r) => h('span', null, side(r.nameA, r.typeA, r.precA)), title: (r) => r.nameA },
        { key: 'ib', label: 'B', width: '4em', num: true, value: (r) => r.ib, text: (r) => (r.ib === null ? '' : String(r.ib)) },
        { key: 'nameB', label: 'B layer', width: 'minmax(14em, 3fr)', value: (r) => r.nameB + ' ' + r.typeB + ' ' + r.precB, text: (r) => h('span', null, side(r.nameB, r.typeB, r.precB)), title: (r) => r.nameB },
        { key: 'msA', label: 'A ms', width: '6em', num: true, value: (r) => r.msA, text: (r) => (r.msA === null ? '' : num(r.msA)) },
        { key: 'msB', label: 'B ms', width: '6em', num: true, value: (r) => r.msB, text: (r) => (r.msB === null ? '' : num(r.msB)) },
        { key: 'delta', label: '\u0394 ms', width: '6.5em', num: true, value: (r) => r.delta, text: (r) => (r.delta === null ? '' : (r.delta > 0 ? '+' : '') + num(r.delta)) },
        { key: 'kernels', label: 'kernel A \u2192 B', width: 'minmax(8em, 1.5fr)', value: (r) => r.kernelA + ' ' + r.kernelB, text: (r) => (r.kernelA && r.kernelA === r.kernelB ? 'same kernel' : r.kernelA || r.kernelB ? (r.kernelA || '\u2013') + ' \u2192 ' + (r.kernelB || '\u2013') : ''), title: (r) => 'A: ' + (r.kernelA || '\u2013') + '\nB: ' + (r.kernelB || '\u2013') },
        { key: 'match', label: 'matched by', width: '8.5em', value: (r) => r.match, text: (r) => (r.match ? r.match + (r.conf === null ? '' : ' ' + num(r.conf, 2)) : ''), title: (r) => (r.match ? 'matched by ' + r.match + ', confidence ' + num(r.conf, 2) : '') },
        { key: 'reasons', label: 'why', width: 'minmax(12em, 3fr)', value: (r) => r.why, text: (r) => r.why, title: (r) => r.why + (r.kernelA || r.kernelB ? '\nA kernel: ' + (r.kernelA || '\u2013') + '\nB kernel: ' + (r.kernelB || '\u2013') : '') },
        { key: 'group', label: 'group', width: '4.5em', num: true, value: (r) => r.group, text: (r) => (r.group === null ? '' : h('a', { href: '#cmp-group-' + r.group }, String(r.group))) },
        { key: 'modules', label: 'module', width: 'minmax(7em, 1fr)', value: (r) => r.modules, text: (r) => r.module },
      ];
      this.table = new Table(host, { id: 'cmp-table', columns: columns, rows: rows, height: 420 });
      changed.addEventListener('change', () => this.table.setFilter('marker', changed.checked ? '!=' : ''));
      // "changed rows only": every marker but "="
      const original = makeFilter;
      this.table.setFilter = (key, text, silent) => {
        const col = columns.find((c) => c.key === key);
        if (key === 'marker' && text === '!=') this.table.filters[key] = (v) => v !== '=';
        else if (key === 'modules') this.table.filters[key] = moduleFilter(text);
        else this.table.filters[key] = original(text, col);
        if (this.table.inputs[key] && text !== '!=' && this.table.inputs[key].value !== text) this.table.inputs[key].value = text;
        if (!silent) this.table.update();
      };
      let timer = 0;
      module.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(() => this.table.setFilter('modules', module.value), 150);
      });
      this.moduleInput = module;
    },
    onnx(host, C) {
      const O = C.onnx;
      if (!O.node.length) return;
      host.append(h('h3', null, 'Time per ONNX node in both builds (a layer\u2019s time is shared by its nodes)'));
      const rows = O.node.map((n, k) => ({
        node: str(n),
        kind: str(O.kind[k]),
        module: str(O.module[k]),
        ia: O.ia[k],
        ib: O.ib[k],
        prec: (str(O.precA[k]) || '\u2013') + ' \u2192 ' + (str(O.precB[k]) || '\u2013'),
        msA: O.msA[k],
        msB: O.msB[k],
        delta: O.msA[k] !== null && O.msB[k] !== null ? O.msB[k] - O.msA[k] : null,
        fusion: str(O.fusion[k]),
      }));
      const columns = [
        { key: 'node', label: 'ONNX node', width: 'minmax(14em, 3fr)', value: (r) => r.node, text: (r) => r.node },
        { key: 'kind', label: 'kind', width: '6em', value: (r) => r.kind, text: (r) => r.kind },
        { key: 'module', label: 'module', width: 'minmax(8em, 1.5fr)', value: (r) => r.module, text: (r) => r.module, placeholder: '/a/b or /a/*' },
        { key: 'prec', label: 'precision A \u2192 B', width: '10em', value: (r) => r.prec, text: (r) => r.prec },
        { key: 'msA', label: 'A layer ms', width: '7em', num: true, value: (r) => r.msA, text: (r) => (r.msA === null ? '' : num(r.msA)) },
        { key: 'msB', label: 'B layer ms', width: '7em', num: true, value: (r) => r.msB, text: (r) => (r.msB === null ? '' : num(r.msB)) },
        { key: 'delta', label: '\u0394 ms', width: '6.5em', num: true, value: (r) => r.delta, text: (r) => (r.delta === null ? '' : (r.delta > 0 ? '+' : '') + num(r.delta)) },
        { key: 'fusion', label: 'fusion', width: '7em', value: (r) => r.fusion, text: (r) => r.fusion },
      ];
      this.onnxTable = new Table(host, { id: 'cmp-onnx-table', columns: columns, rows: rows, height: 300 });
    },
    passes(host, C) {
      if (!C.passes) return;
      const P = C.passes;
      host.append(h('h3', null, 'Per-pass differences (both sides verbose logs)'));
      if (P.counts.length) {
        const t = h('table', { class: 'grid' });
        t.append(h('thead', null, h('tr', null, ['pass', 'runs A', 'runs B', 'fusions A', 'fusions B'].map((x) => h('th', null, x)))));
        const b = h('tbody');
        for (const r of P.counts.slice(0, 200)) b.append(h('tr', null, h('td', null, h('code', null, r[0])), ...r.slice(1).map((v) => h('td', { class: 'num' }, String(v)))));
        t.append(b);
        host.append(h('div', { class: 'scroll-x tall' }, t));
      }
      for (const [label, list, here] of [['Fusions only A made', P.onlyA, false], ['Fusions only B made', P.onlyB, true]]) {
        if (!list.length) continue;
        host.append(h('p', null, h('b', null, label + ' (' + list.length + ')')));
        const ul = h('ul', { class: 'events' });
        for (const f of list.slice(0, 300)) ul.append(h('li', null, here ? lineLink(f[3]) : 'line ' + f[3], ' ', h('code', null, f[0] || '(no pass)'), ' ', f[2], f[4] ? ' (the other side: ' + f[4] + ')' : ''));
        host.append(ul);
      }
    },
    gotoRow(match) {
      if (!this.table) return;
      doc.getElementById('compare').scrollIntoView({ block: 'start' });
      this.table.goto(match);
    },
    filterModule(path) {
      if (!this.table) return;
      this.moduleInput.value = path;
      this.table.setFilter('modules', path);
      this.table.wrap.scrollIntoView({ block: 'start' });
    },
  };

  const MARK = { '=': 'same', '~': 'changed', '-': 'onlyA', '+': 'onlyB' };

  function moduleFilter(text) {
    text = (text || '').trim().toLowerCase();
    if (!text) return null;
    const base = text.endsWith('/*') ? text.slice(0, -2) : text;
    return (v) => String(v || '').toLowerCase().split(' ').some((m) => m === base || m.startsWith(base + '/') || (!text.endsWith('/*') && m.includes(text)));
  }

  // -- Raw log -------------------------------------------------------------------------------

  const PALETTE = 12;
  function hue(kind) {
    let x = 0;
    for (let i = 0; i < kind.length; i++) x = (x * 31 + kind.charCodeAt(i)) >>> 0;
    return x % PALETTE;
  }

  const RawLog = {
    mode: 'excerpt',
    async render(host) {
      host.replaceChildren();
      const L = D.log;
      this.L = L;
      const codesText = doc.getElementById('trtlog-codes').textContent;
      const bytes = codesText.trim() ? await gunzip(codesText) : new Uint8Array(0);
      this.codes = L.wide ? new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2) : bytes;
      this.kinds = L.kinds;
      this.unknown = new Set(L.kinds.map((k, i) => (k[0] === 'unrecognized' ? i : -1)).filter((i) => i >= 0));
      const bar = h('div', { class: 'toolbar log-bar' });
      this.info = h('span', { class: 'log-info', id: 'log-info' });
      this.unfoldButton = h('button', { type: 'button', id: 'log-unfold', onclick: () => this.unfold() }, L.cut ? 'Show the first ' + L.cut.lines.toLocaleString('en') + ' lines' : 'Show all ' + L.lines.toLocaleString('en') + ' lines');
      const download = h('button', { type: 'button', id: 'log-download', onclick: () => this.download() }, 'Download the log');
      this.find = h('input', { type: 'search', id: 'log-find', placeholder: 'find in the log (Enter: next)', 'aria-label': 'find in the log' });
      this.find.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter') this.next(this.find.value);
      });
      bar.append(this.info, ' ', this.unfoldButton, ' ', download, ' ', this.find);
      host.append(bar, this.legend());
      this.list = new VirtualList(host, { height: 520, rowHeight: 18, className: 'log', render: (i) => this.row(i) });
      this.entries = [];
      this.showExcerpt();
      if (L.unfold) await this.unfold();
    },
    legend() {
      const counts = new Map();
      for (let i = 0; i < this.codes.length; i++) counts.set(this.codes[i], (counts.get(this.codes[i]) || 0) + 1);
      const byKind = new Map();
      for (const [code, n] of counts) {
        const kind = this.kinds[code][0];
        byKind.set(kind, (byKind.get(kind) || 0) + n);
      }
      const items = Array.from(byKind.entries()).sort((a, b) => b[1] - a[1]);
      return h('details', { class: 'legend-box' }, h('summary', null, items.length + ' event kinds (colours)'), h('p', { class: 'legend' }, items.map(([kind, n]) => h('span', { class: 'lk c' + hue(kind) + (kind === 'unrecognized' ? ' unrec' : '') }, kind + ' ' + n))));
    },
    showExcerpt() {
      const numbers = this.L.excerpt[0];
      const entries = [];
      let previous = 0;
      for (const n of numbers) {
        if (n > previous + 1) entries.push({ gap: n - previous - 1, from: previous + 1 });
        entries.push({ n: n, text: excerpt.get(n) });
        previous = n;
      }
      if (previous < this.L.lines) entries.push({ gap: this.L.lines - previous, from: previous + 1 });
      this.entries = entries;
      this.mode = 'excerpt';
      this.info.textContent = 'Showing the ' + numbers.length.toLocaleString('en') + ' lines this page points at (with context) of ' + this.L.lines.toLocaleString('en') + '. ' + (this.L.cut ? this.L.cut.note + ' ' : '');
      this.list.setCount(entries.length);
    },
    async unfold() {
      if (this.mode === 'full') return;
      if (!this.unfolding) {
        this.unfolding = (async () => {
          this.unfoldButton.disabled = true;
          this.unfoldButton.textContent = 'Unfolding\u2026';
          const bytes = await gunzip(doc.getElementById('trtlog-log').textContent);
          this.bytes = bytes;
          const text = new TextDecoder().decode(bytes);
          // lines end at \n, \r\n or a lone \r, as trtlog splits them
          const lines = text.indexOf('\r') < 0 ? text.split('\n') : text.split(/\r\n|\r|\n/);
          if (lines.length && lines[lines.length - 1] === '' && /[\r\n]$/.test(text)) lines.pop();
          if (lines.length !== (this.L.cut ? this.L.cut.lines : this.L.lines)) console.error('trtlog report: the log has ' + lines.length + ' lines here, ' + this.L.lines + ' in trtlog');
          this.lines = lines;
          this.mode = 'full';
          this.entries = null;
          this.info.textContent = this.L.cut ? this.L.cut.note + ' ' : this.L.lines.toLocaleString('en') + ' lines. ';
          this.unfoldButton.hidden = true;
          this.list.setCount(lines.length);
        })();
      }
      await this.unfolding;
    },
    row(i) {
      let n;
      let text;
      if (this.mode === 'full') {
        n = i + 1;
        text = this.lines[i];
      } else {
        const e = this.entries[i];
        if (e.gap) {
          return h('div', { class: 'logline gap', onclick: () => this.unfold().then(() => this.goto(e.from)) }, h('span', { class: 'ln' }, '\u22ee'), h('span', { class: 'tx' }, '\u2026 ' + e.gap.toLocaleString('en') + ' more line(s): click to unfold the whole log'));
        }
        n = e.n;
        text = e.text;
      }
      const code = n - 1 < this.codes.length ? this.codes[n - 1] : 0;
      const [kind, severity] = this.kinds[code] || ['?', null];
      const unknown = this.unknown.has(code);
      return h(
        'div',
        { class: 'logline c' + hue(kind) + (unknown ? ' unrec' : '') + (severity ? ' s-' + severity : ''), id: 'L' + n, dataset: { line: String(n), kind: kind }, title: 'line ' + n + ': ' + kind + (severity ? ' (' + severity + ')' : '') + (unknown ? ' \u2014 no rule understands this line' : '') },
        h('a', { class: 'ln', href: '#L' + n }, String(n)),
        h('span', { class: 'mark' }, unknown ? '?' : ''),
        h('span', { class: 'tx' }, text)
      );
    },
    async goto(n) {
      const section = doc.getElementById('log');
      if (this.mode !== 'full' && !excerpt.has(n)) await this.unfold();
      let i;
      if (this.mode === 'full') i = n - 1;
      else i = this.entries.findIndex((e) => e.n === n);
      if (i < 0) return;
      section.scrollIntoView({ block: 'start' });
      this.list.scrollTo(i);
    },
    async next(q) {
      if (!q) return;
      await this.unfold();
      const lower = q.toLowerCase();
      const start = this.list.highlight >= 0 ? this.list.highlight + 1 : 0;
      for (let k = 0; k < this.lines.length; k++) {
        const i = (start + k) % this.lines.length;
        if (this.lines[i].toLowerCase().includes(lower)) {
          this.list.scrollTo(i);
          return;
        }
      }
    },
    async download() {
      const bytes = this.bytes || (await gunzip(doc.getElementById('trtlog-log').textContent));
      const url = URL.createObjectURL(new Blob([bytes], { type: 'text/plain' }));
      const a = h('a', { href: url, download: (this.L.name.split(/[\\/]/).pop() || 'build') + (/\.(log|txt)$/.test(this.L.name) ? '' : '.log') });
      doc.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    },
  };

  // -- start ---------------------------------------------------------------------------------

  route(/^#L(\d+)$/, (m) => RawLog.L && RawLog.goto(Number(m[1])));
  route(/^#layer-(\d+)$/, (m) => Layers.goto(Number(m[1])));
  route(/^#finding-(\d+)$/, (m) => Findings.goto(Number(m[1])));
  route(/^#explore=(.*)$/, (m) => {
    if (!Explorer.G) return;
    Explorer.selectName(decode(m[1]));
  });
  route(/^#module=(.*)$/, (m) => Modules.tree && Modules.open(decode(m[1])));
  route(/^#cmp-row-(\d+)$/, (m) => Compare.gotoRow((r) => r.step === Number(m[1])));
  route(/^#cmp-a-(\d+)$/, (m) => Compare.gotoRow((r) => r.ia === Number(m[1])));
  route(/^#cmp-b-(\d+)$/, (m) => Compare.gotoRow((r) => r.ib === Number(m[1])));
  route(/^#cmp-module=(.*)$/, (m) => Compare.filterModule(decode(m[1])));
  route(/^#cmp-group-(\d+)$/, (m) => {
    const el = doc.getElementById('cmp-group-' + m[1]);
    if (el) reveal(el);
  });

  async function main() {
    D = await loadData();
    S = D.S;
    if (D.log) {
      // the lines the page points at, quoted by the findings before the log is unfolded
      const [numbers, texts] = D.log.excerpt;
      for (let k = 0; k < numbers.length; k++) excerpt.set(numbers[k], texts[k]);
    }
    const parts = [
      ['findings', Findings, D.findings],
      ['passes', Passes, D.passes],
      ['explorer', Explorer, D.graph],
      ['layers', Layers, D.layers],
      ['modules', Modules, D.modules],
      ['tactics', Tactics, D.tactics && D.tactics.rows ? D.tactics : null],
      ['memory', Memory, D.memory],
      ['compare', Compare, D.cmp],
      ['log', RawLog, D.log],
    ];
    for (const [key, part, data] of parts) {
      const host = doc.getElementById(key + '-body');
      if (host && data) await part.render(host);
      else if (host) host.replaceChildren(note('No data for this section.'));
    }
    doc.documentElement.dataset.ready = '1';
    doc.documentElement.dataset.readyMs = String(Math.round(performance.now()));
    if (location.hash) go(location.hash, false);
  }

  main().catch((err) => {
    console.error(err);
    const banner = h('div', { class: 'fatal', role: 'alert' }, 'This report could not be shown: ' + String(err && err.message ? err.message : err));
    doc.body.prepend(banner);
    doc.documentElement.dataset.ready = 'error';
  });
})();
