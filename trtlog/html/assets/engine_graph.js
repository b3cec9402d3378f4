/* trtlog report: the engine graph section (plain JavaScript, no build step).
 *
 * Reads #trtlog-engine-graph (trtlog/html/engine_graph.py writes it: nodes, tensor edges,
 * Myelin regions and laid-out views) and draws the view it is given as SVG: the layout is
 * trtlog's own (trtlog.graph.layout), made when the report was, so nothing is laid out here
 * except the neighbourhood of a layer in a view too big to draw whole (by the vendored dagre).
 * Names reach the DOM only through textContent and attribute values. A layer links to its
 * row in the layers table through the page's own router (#layer-N). The page sets
 * data-graph-ready (and data-graph-ready-ms) on <html> once the graph is drawn and painted;
 * window.trtlogEngineGraph is the section's state, for bench/report.py and the console.
 */
(function () {
  'use strict';

  const doc = document;
  const SVGNS = 'http://www.w3.org/2000/svg';
  const NODE_H = 26;
  const CHAR_W = 6.6;
  const LABEL_CHARS = 28;
  const KIND = ['layer', 'region', 'input', 'output'];
  // ColorBrewer Set3, then Pastel1 (the colours trtlog graph --engine -o x.svg uses)
  const PALETTE = ['#8dd3c7', '#ffffb3', '#bebada', '#fb8072', '#80b1d3', '#fdb462', '#b3de69', '#fccde5', '#d9d9d9', '#bc80bd', '#ccebc5', '#ffed6f', '#fbb4ae', '#b3cde3', '#decbe4', '#fed9a6'];
  const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
  const visible = (t) => String(t).replace(HIDDEN, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));
  const clip = (t) => {
    t = visible(t);
    return t.length <= LABEL_CHARS ? t : t.slice(0, LABEL_CHARS - 1) + '\u2026';
  };
  const nodeWidth = (label) => 16 + CHAR_W * Math.min(label.length, LABEL_CHARS);
  const fmtMs = (v) => (v === null || v === undefined ? '\u2013' : String(Number(v.toPrecision(4))) + ' ms');

  function el(ns, tag, attrs, ...kids) {
    const e = ns ? doc.createElementNS(ns, tag) : doc.createElement(tag);
    for (const k of Object.keys(attrs || {})) {
      const v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k === 'text') e.textContent = visible(v);
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const kid of kids.flat()) if (kid !== null && kid !== undefined && kid !== false) e.append(kid instanceof Node ? kid : visible(kid));
    return e;
  }
  const h = (tag, attrs, ...kids) => el(null, tag, attrs, ...kids);
  const s = (tag, attrs, ...kids) => el(SVGNS, tag, attrs, ...kids);

  async function load() {
    const block = doc.getElementById('trtlog-engine-graph');
    let text = block ? block.textContent : '';
    if (!text) return null;
    if (block.dataset.encoding === 'gzip+base64') {
      const bin = atob(text.trim());
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
      text = new TextDecoder().decode(await new Response(stream).arrayBuffer());
    }
    return JSON.parse(text);
  }

  const G = {
    D: null,
    opened: -1, // the open region, or -1 (all folded)
    focus: -1, // neighbourhood mode: the node drawn with its neighbours
    selected: -1,
    colourBy: 'type',
    scale: 1,
    tx: 0,
    ty: 0,

    render(host, data) {
      this.D = data;
      const N = data.nodes;
      this.count = N.label.length;
      // each node's edges, for the details panel and neighbourhoods
      this.ins = Array.from({ length: this.count }, () => []);
      this.outs = Array.from({ length: this.count }, () => []);
      for (let e = 0; e < data.edges.src.length; e++) {
        this.outs[data.edges.src[e]].push(e);
        this.ins[data.edges.dst[e]].push(e);
      }
      this.palette = { type: this.paletteOf(N.type), precision: this.paletteOf(N.precision) };
      this.topMs = Math.max(0, ...N.ms.filter((v) => v !== null));
      this.search = h('input', { id: 'graph-search', type: 'search', placeholder: 'search a layer or tensor\u2026', 'aria-label': 'search the engine graph', oninput: () => this.find(this.search.value) });
      this.results = h('div', { id: 'graph-results', class: 'graph-results' });
      this.colour = h(
        'select',
        { id: 'graph-colour', 'aria-label': 'colour by', onchange: () => { this.colourBy = this.colour.value; this.paint(); } },
        h('option', { value: 'type' }, 'colour by layer type'),
        h('option', { value: 'precision' }, 'colour by precision'),
        h('option', { value: 'time', disabled: !data.timed }, 'colour by time' + (data.timed ? '' : ' (no profile)'))
      );
      const button = (id, label, title, fn) => h('button', { id, type: 'button', title, onclick: fn }, label);
      this.foldButton = button('graph-fold', 'fold regions', 'fold the open Myelin region', () => this.show(-1));
      this.status = h('span', { id: 'graph-status', class: 'graph-status' });
      const bar = h(
        'div',
        { class: 'graph-bar' },
        this.search,
        this.colour,
        button('graph-fit', 'fit', 'fit the drawing to the frame', () => this.fit()),
        button('graph-zoom-in', '+', 'zoom in', () => this.zoomBy(1.4)),
        button('graph-zoom-out', '\u2212', 'zoom out', () => this.zoomBy(1 / 1.4)),
        this.foldButton,
        this.status
      );
      this.svg = s('svg', { id: 'graph-svg', class: 'graph-svg', role: 'img', 'aria-label': 'engine graph' });
      this.svg.append(
        s('defs', null, s('marker', { id: 'graph-arrow', viewBox: '0 0 8 8', refX: '8', refY: '4', markerWidth: '7', markerHeight: '7', orient: 'auto' }, s('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#888' })))
      );
      this.port = s('g', { id: 'graph-viewport' });
      this.svg.append(this.port);
      this.canvas = h('div', { id: 'graph-canvas', class: 'graph-canvas' }, this.svg);
      this.legend = h('div', { id: 'graph-legend', class: 'graph-legend' });
      this.detail = h('div', { id: 'graph-detail', class: 'graph-detail' }, h('p', { class: 'note' }, 'Click a node for its tensors; double-click a layer for its row in the layers table, a region to open it.'));
      this.note = h('p', { id: 'graph-note', class: 'note' });
      host.replaceChildren(bar, this.results, this.note, h('div', { class: 'graph-main' }, this.canvas, this.detail), this.legend);
      this.panZoom();
      this.show(-1);
    },

    paletteOf(values) {
      const out = new Map();
      for (const v of values) if (v && !out.has(v) && out.size < PALETTE.length) out.set(v, PALETTE[out.size]);
      return out;
    },

    fill(i) {
      const N = this.D.nodes;
      const kind = N.kind[i];
      if (kind >= 2) return '#ffffff';
      if (this.colourBy === 'time') {
        const v = N.ms[i];
        if (v === null || !this.topMs) return '#eeeeee';
        const g = Math.round(255 - 200 * Math.min(1, Math.sqrt(Math.max(v, 0) / this.topMs)));
        return '#ff' + g.toString(16).padStart(2, '0').repeat(2);
      }
      const key = this.colourBy === 'type' ? N.type[i] : N.precision[i];
      return (key && this.palette[this.colourBy].get(key)) || '#eeeeee';
    },

    // which node stands for node i in the current view (a folded kernel: its region)
    drawnAs(i) {
      const r = this.D.nodes.region[i];
      if (r >= 0 && r !== this.opened) return this.D.regions[r].node;
      return i;
    },

    view() {
      return this.opened < 0 ? this.D.views.folded : this.D.views.open[this.opened];
    },

    // show the view with region k open (-1: all folded); a view too big to draw whole is
    // drawn as the neighbourhood of a node
    show(k, focus) {
      this.opened = k;
      this.selected = -1;
      const v = this.view();
      this.foldButton.hidden = k < 0;
      if (v) {
        this.focus = -1;
        this.draw(v);
        this.note.textContent = '';
      } else {
        const start = focus !== undefined ? this.drawnAs(focus) : this.firstDrawn();
        this.neighbourhood(start);
      }
      this.fit();
      if (focus !== undefined) this.select(this.drawnAs(focus), true);
    },

    firstDrawn() {
      for (let i = 0; i < this.count; i++) if (this.drawnAs(i) === i && !(this.D.nodes.kind[i] === 1 && this.regionOf(i) === this.opened)) return i;
      return 0;
    },

    regionOf(node) {
      return this.D.regions.findIndex((r) => r.node === node);
    },

    // the nodes within a few steps of `start` (as drawn), laid out by dagre
    neighbourhood(start) {
      const D = this.D;
      const near = new Map([[start, 0]]);
      const queue = [start];
      const members = (i) => (D.nodes.kind[i] === 1 && this.regionOf(i) !== this.opened ? D.regions[this.regionOf(i)].members : [i]);
      while (queue.length && near.size < 120) {
        const v = queue.shift();
        const d = near.get(v);
        if (d >= 3) continue;
        for (const m of members(v)) {
          for (const e of this.ins[m].concat(this.outs[m])) {
            for (const w of [this.drawnAs(D.edges.src[e]), this.drawnAs(D.edges.dst[e])]) {
              if (!near.has(w) && !(D.nodes.kind[w] === 1 && this.regionOf(w) === this.opened)) {
                near.set(w, d + 1);
                queue.push(w);
              }
            }
          }
        }
      }
      const g = new dagre.graphlib.Graph({ multigraph: true });
      g.setGraph({ rankdir: 'TB', nodesep: 16, ranksep: 34 });
      g.setDefaultEdgeLabel(() => ({}));
      const nodes = [...near.keys()];
      for (const i of nodes) g.setNode(String(i), { width: nodeWidth(D.nodes.label[i]), height: NODE_H });
      const edges = [];
      const ends = [];
      const seen = new Set();
      for (const i of nodes) {
        for (const m of members(i)) {
          for (const e of this.outs[m]) {
            const a = i;
            const b = this.drawnAs(D.edges.dst[e]);
            const key = a + ' ' + b + ' ' + D.edges.tensor[e];
            if (a === b || !near.has(b) || seen.has(key)) continue;
            seen.add(key);
            g.setEdge(String(a), String(b), {}, String(edges.length));
            edges.push(e);
            ends.push([a, b]);
          }
        }
      }
      dagre.layout(g);
      const v = { nodes, x: [], y: [], edges, ends, points: [], width: g.graph().width, height: g.graph().height };
      for (const i of nodes) {
        const n = g.node(String(i));
        v.x.push(n.x);
        v.y.push(n.y);
      }
      edges.forEach((e, k) => {
        const pts = g.edge(String(ends[k][0]), String(ends[k][1]), String(k)).points;
        v.points.push(pts.flatMap((p) => [p.x, p.y]));
      });
      this.focus = start;
      this.draw(v, true);
      this.note.textContent = 'This view has more than ' + D.maxDrawn.toLocaleString('en') + ' nodes: it shows the ' + nodes.length + ' nodes around ' + visible(D.nodes.label[start]) + ' (search a layer, or double-click a node to centre on it).';
    },

    draw(v, dagreLaid) {
      const D = this.D;
      const N = D.nodes;
      this.current = v;
      this.where = new Map();
      const edgesG = s('g', { class: 'graph-edges' });
      const labels = v.edges.length <= 300;
      v.edges.forEach((e, k) => {
        const p = v.points[k];
        const [a, b] = v.ends[k];
        let d;
        if (dagreLaid) {
          d = 'M' + p[0] + ',' + p[1];
          for (let j = 2; j < p.length; j += 2) d += ' L' + p[j] + ',' + p[j + 1];
        } else {
          // trtlog's layout gives centres: start below the source box, end on the target's
          const n = p.length;
          const down = p[n - 1] >= p[1] ? 1 : -1;
          d = 'M' + p[0] + ',' + (p[1] + (down * NODE_H) / 2);
          for (let j = 2; j < n - 2; j += 2) d += ' L' + p[j] + ',' + p[j + 1];
          d += ' L' + p[n - 2] + ',' + (p[n - 1] - (down * NODE_H) / 2);
        }
        const text = D.edges.tensor[e] + (D.edges.label[e] ? ': ' + D.edges.label[e] : '');
        edgesG.append(s('path', { d, class: 'gedge', 'data-edge': e, 'data-from': a, 'data-to': b, 'marker-end': 'url(#graph-arrow)' }, s('title', { text })));
        if (labels && D.edges.label[e] && p.length >= 4) {
          // at the edge's middle: a bend point of a long edge, else the middle of its line
          const n = p.length / 2;
          const at = n > 2 ? [p[2 * Math.floor(n / 2)], p[2 * Math.floor(n / 2) + 1]] : [(p[0] + p[2]) / 2, (p[1] + p[3]) / 2];
          edgesG.append(s('text', { class: 'gedge-label', x: at[0] + 4, y: at[1] + 4, text: D.edges.label[e] }));
        }
      });
      const nodesG = s('g', { class: 'graph-nodes' });
      v.nodes.forEach((i, k) => {
        const x = v.x[k];
        const y = v.y[k];
        this.where.set(i, [x, y]);
        const label = N.label[i];
        const w = nodeWidth(label);
        const kind = KIND[N.kind[i]];
        const tip = [label];
        if (kind === 'region') tip.push('Myelin region of ' + D.regions[this.regionOf(i)].members.length + ' kernels (double-click to open)');
        for (const t of [N.type[i], N.precision[i]]) if (t) tip.push(t);
        if (N.ms[i] !== null) tip.push(fmtMs(N.ms[i]));
        // (each line made visible on its own: the line breaks are the tooltip's)
        const title = s('title');
        title.textContent = tip.map(visible).join('\n');
        const g = s(
          'g',
          { class: 'gnode ' + kind, 'data-node': i, transform: 'translate(' + x + ',' + y + ')' },
          title,
          s('rect', { x: -w / 2, y: -NODE_H / 2, width: w, height: NODE_H, rx: kind === 'input' || kind === 'output' ? 13 : 4 }),
          s('text', { 'text-anchor': 'middle', y: 4, text: clip(label) })
        );
        g.addEventListener('click', () => this.select(i, false));
        g.addEventListener('dblclick', (ev) => {
          ev.preventDefault();
          this.activate(i);
        });
        nodesG.append(g);
      });
      this.port.replaceChildren(edgesG, nodesG);
      this.width = v.width;
      this.height = v.height;
      this.paint();
      const folded = D.regions.length - (this.opened >= 0 ? 1 : 0);
      this.status.textContent =
        D.layers.toLocaleString('en') + ' layers \u00b7 ' + v.nodes.length.toLocaleString('en') + ' nodes, ' + v.edges.length.toLocaleString('en') + ' edges shown' + (D.regions.length ? ' \u00b7 ' + folded + ' Myelin region(s) folded' : '');
    },

    paint() {
      for (const g of this.port.querySelectorAll('g.gnode')) g.querySelector('rect').setAttribute('fill', this.fill(Number(g.dataset.node)));
      this.drawLegend();
    },

    drawLegend() {
      const items = [];
      // (the colour set through the CSSOM: the page's policy allows no style attribute)
      const key = (colour, text) => {
        const swatch = h('i');
        swatch.style.background = colour;
        return h('span', { class: 'key' }, swatch, text);
      };
      if (this.colourBy === 'time') {
        items.push(key('#ffffff', '0 ms'), key('#ff3737', fmtMs(this.topMs) + ' (slowest)'), key('#eeeeee', 'no time'));
      } else {
        for (const [text, colour] of this.palette[this.colourBy]) items.push(key(colour, text));
      }
      this.legend.replaceChildren(...items);
    },

    // a double-click: a region opens, a layer goes to its row in the layers table, another
    // node of a neighbourhood becomes its centre
    activate(i) {
      const N = this.D.nodes;
      if (N.kind[i] === 1) {
        const k = this.regionOf(i);
        this.show(k, this.D.regions[k].members[0]);
      } else if (N.kind[i] === 0) {
        this.toTable(i);
      } else if (this.focus >= 0) {
        this.neighbourhood(i);
        this.fit();
      }
    },

    toTable(i) {
      // through the page's router (a link click), as every other link to a layer row
      const a = h('a', { href: '#layer-' + i, hidden: true });
      doc.body.append(a);
      a.click();
      a.remove();
    },

    select(i, centre) {
      if (this.focus >= 0 && !this.where.has(i)) {
        this.neighbourhood(i);
        this.fit();
      }
      this.selected = i;
      for (const g of this.port.querySelectorAll('g.gnode.selected')) g.classList.remove('selected');
      for (const p of this.port.querySelectorAll('path.gedge.near')) p.classList.remove('near');
      const g = this.port.querySelector('g.gnode[data-node="' + i + '"]');
      if (g) g.classList.add('selected');
      for (const p of this.port.querySelectorAll('path.gedge[data-from="' + i + '"], path.gedge[data-to="' + i + '"]')) p.classList.add('near');
      if (centre) this.centre(i);
      this.showDetail(i);
    },

    showDetail(i) {
      const D = this.D;
      const N = D.nodes;
      const kind = KIND[N.kind[i]];
      const rows = [];
      const fact = (k, v) => rows.push(h('tr', null, h('th', null, k), h('td', null, v)));
      fact('kind', kind === 'layer' && N.region[i] >= 0 ? 'Myelin kernel of ' + D.regions[N.region[i]].label : kind);
      if (N.type[i]) fact('type', N.type[i]);
      if (N.precision[i]) fact('precision', N.precision[i]);
      if (N.ms[i] !== null) fact('time', fmtMs(N.ms[i]));
      const members = kind === 'region' ? D.regions[this.regionOf(i)].members : [i];
      const inner = new Set(members);
      const tensors = (list, end) => {
        const seen = new Set();
        const out = [];
        for (const m of members) {
          for (const e of list[m]) {
            const other = D.edges[end][e];
            if (inner.has(other) || seen.has(e)) continue;
            seen.add(e);
            out.push(h('li', null, h('code', null, D.edges.tensor[e]), ' ' + (D.edges.label[e] || '')));
          }
        }
        return out;
      };
      const parts = [h('h3', { id: 'graph-detail-name', class: 'graph-name' }, N.label[i]), h('table', { class: 'facts' }, rows)];
      const ins = tensors(this.ins, 'src');
      const outs = tensors(this.outs, 'dst');
      if (ins.length) parts.push(h('div', { class: 'note' }, 'inputs'), h('ul', { class: 'graph-tensors', id: 'graph-inputs' }, ins));
      if (outs.length) parts.push(h('div', { class: 'note' }, 'outputs'), h('ul', { class: 'graph-tensors', id: 'graph-outputs' }, outs));
      if (kind === 'layer') {
        parts.push(h('p', null, h('a', { href: '#layer-' + i, id: 'graph-to-table', class: 'layer-link' }, 'its row in the layers table')));
      } else if (kind === 'region') {
        const k = this.regionOf(i);
        parts.push(h('p', null, members.length + ' kernels. ', h('button', { type: 'button', id: 'graph-open', onclick: () => this.show(k, members[0]) }, 'open the region')));
      }
      this.detail.replaceChildren(...parts);
    },

    find(q) {
      const D = this.D;
      q = q.trim().toLowerCase();
      if (!q) {
        this.results.replaceChildren();
        return;
      }
      const hits = [];
      for (let i = 0; i < this.count && hits.length < 30; i++) if (D.nodes.label[i].toLowerCase().includes(q)) hits.push(['node', i]);
      for (let e = 0; e < D.edges.tensor.length && hits.length < 30; e++) if (D.edges.tensor[e].toLowerCase().includes(q)) hits.push(['tensor', e]);
      const seenTensor = new Set();
      const buttons = [];
      for (const [what, k] of hits) {
        if (what === 'node') {
          buttons.push(h('button', { type: 'button', 'data-node': k, onclick: () => this.goTo(k) }, clip(D.nodes.label[k]) + (D.nodes.type[k] ? ' \u00b7 ' + D.nodes.type[k] : '')));
        } else if (!seenTensor.has(D.edges.tensor[k])) {
          seenTensor.add(D.edges.tensor[k]);
          const from = D.edges.src[k];
          buttons.push(h('button', { type: 'button', 'data-node': from, onclick: () => this.goTo(from) }, 'tensor ' + clip(D.edges.tensor[k])));
        }
      }
      this.results.replaceChildren(...(buttons.length ? buttons : [h('span', { class: 'note' }, 'no layer or tensor holds that text')]));
    },

    // show node i: open its region when it is a folded kernel, then centre and select it
    goTo(i) {
      const r = this.D.nodes.region[i];
      if (r >= 0 && r !== this.opened) this.show(r, i);
      else if (r < 0 && this.opened >= 0 && !this.where.has(i)) this.show(-1, i);
      else this.select(i, true);
      this.canvas.scrollIntoView({ block: 'nearest' });
    },

    // -- zoom and pan ---------------------------------------------------------------------

    apply() {
      this.port.setAttribute('transform', 'translate(' + this.tx + ',' + this.ty + ') scale(' + this.scale + ')');
    },
    fit() {
      const box = this.canvas.getBoundingClientRect();
      const w = box.width || 900;
      const hgt = box.height || 560;
      const pad = 24;
      this.scale = Math.min(2, (w - 2 * pad) / Math.max(this.width + 1, 1), (hgt - 2 * pad) / Math.max(this.height + NODE_H, 1));
      this.scale = Math.max(this.scale, 0.05);
      this.tx = (w - this.width * this.scale) / 2;
      this.ty = pad + (NODE_H / 2) * this.scale;
      this.apply();
    },
    centre(i) {
      const at = this.where.get(i);
      if (!at) return;
      const box = this.canvas.getBoundingClientRect();
      this.scale = Math.max(this.scale, 0.9);
      this.tx = (box.width || 900) / 2 - at[0] * this.scale;
      this.ty = (box.height || 560) / 2 - at[1] * this.scale;
      this.apply();
    },
    zoomBy(f, cx, cy) {
      const box = this.canvas.getBoundingClientRect();
      cx = cx === undefined ? box.width / 2 : cx;
      cy = cy === undefined ? box.height / 2 : cy;
      const next = Math.min(8, Math.max(0.02, this.scale * f));
      this.tx = cx - ((cx - this.tx) * next) / this.scale;
      this.ty = cy - ((cy - this.ty) * next) / this.scale;
      this.scale = next;
      this.apply();
    },
    panZoom() {
      this.canvas.addEventListener(
        'wheel',
        (ev) => {
          ev.preventDefault();
          const box = this.canvas.getBoundingClientRect();
          this.zoomBy(Math.exp(-ev.deltaY * 0.0015), ev.clientX - box.left, ev.clientY - box.top);
        },
        { passive: false }
      );
      let drag = null;
      this.canvas.addEventListener('pointerdown', (ev) => {
        if (ev.target.closest && ev.target.closest('g.gnode')) return;
        drag = [ev.clientX, ev.clientY, this.tx, this.ty];
        this.canvas.classList.add('dragging');
      });
      window.addEventListener('pointermove', (ev) => {
        if (!drag) return;
        this.tx = drag[2] + ev.clientX - drag[0];
        this.ty = drag[3] + ev.clientY - drag[1];
        this.apply();
      });
      window.addEventListener('pointerup', () => {
        drag = null;
        this.canvas.classList.remove('dragging');
      });
    },
  };

  function navLink() {
    // the sections' links in the navigation bar, after the layers'
    const layers = doc.querySelector('#nav a[href="#layers"]');
    if (!layers || doc.querySelector('#nav a[href="#graph"]')) return;
    const link = (id, label, why) => {
      const a = h('a', { href: '#' + id, 'data-section': id }, label);
      if (!doc.getElementById(id + '-body')) {
        // the reason the section itself gives ("This section needs ..."), else the generic one
        const missing = doc.querySelector('#' + id + ' p.missing');
        const said = missing ? missing.textContent.replace(/^This section /, '').replace(/\.$/, '') : '';
        a.className = 'no-data';
        a.title = 'no data: ' + (said || why);
      }
      return a;
    };
    layers.after(link('graph', 'Engine graph', 'needs the engine\u2019s layers'), link('bisect', 'Fusion bisection', 'needs a --verbose build log with fusions'));
  }

  async function start() {
    navLink();
    const host = doc.getElementById('graph-body');
    if (!host) return;
    const data = await load();
    if (!data) {
      host.replaceChildren(h('p', { class: 'note' }, 'No data for this section.'));
      return;
    }
    G.render(host, data);
    if (!data.tensors) {
      G.note.textContent = 'This export names its layers only (no tensors): the graph shows the layers without the edges between them. A --profilingVerbosity=detailed build lists each layer\u2019s tensors.';
    }
    // usable: drawn and painted once
    requestAnimationFrame(() => {
      setTimeout(() => {
        doc.documentElement.dataset.graphReady = '1';
        doc.documentElement.dataset.graphReadyMs = String(Math.round(performance.now()));
      }, 0);
    });
  }

  window.trtlogEngineGraph = G; // for the browser tests and the console
  start().catch((err) => {
    console.error(err);
    const host = doc.getElementById('graph-body');
    if (host) host.replaceChildren(h('p', { class: 'missing' }, 'The engine graph could not be drawn: ' + String(err && err.message ? err.message : err)));
    doc.documentElement.dataset.graphReady = 'error';
  });
})();
