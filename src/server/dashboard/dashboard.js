// Cachet dashboard: plain browser scripts over the JSON API, charts drawn with uPlot.
// This file holds what the overview and session pages share (window.Cachet); start.js routes.
// The bearer token (when the server needs one) comes from the URL fragment: #token=...
(() => {
  const fragment = () => new URLSearchParams(location.hash.slice(1));
  const token = fragment().get('token');
  const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

  /** `$0.0123`, and a negative amount as `−$0.0307` (never `$-0.0307`). */
  const formatUsd = (value) => `${value < 0 ? '−' : ''}$${Math.abs(value).toFixed(4)}`;

  async function api(path) {
    const response = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const body = await response.json();
    if (!response.ok) throw new Error(`${path}: ${body.message ?? response.status}`);
    return body;
  }

  function element(tag, attributes = {}, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /** Fill `[data-metric=name]` inside `root`, keeping the raw value for tests and tooltips. */
  function setMetric(root, name, value, formatted, tone) {
    const cell = root.querySelector(`[data-metric="${name}"]`);
    cell.dataset.value = String(value);
    cell.textContent = formatted;
    if (tone) cell.dataset.tone = tone;
    else delete cell.dataset.tone;
    return cell;
  }

  /** The fragment with some keys set (null removes), keeping the token. */
  function hrefWith(changes, base = fragment()) {
    const params = new URLSearchParams(base);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null || value === undefined || value === '') params.delete(name);
      else params.set(name, value);
    }
    return `#${params}`;
  }

  /** `simulation · coding-agent · cachet`: where a session came from, for its name. */
  function originOf(labels) {
    const origin = labels.source ?? 'unknown source';
    const client = labels.client ? ` (${labels.client})` : '';
    const rest = [labels.project, labels.workload, labels.strategy].filter(Boolean).join(' · ');
    return `${origin}${client}${rest ? ` · ${rest}` : ''}`;
  }

  /** A link to a session's page (one click from the overview), named by its origin and id. */
  function sessionLink(sessionId, labels, request) {
    const link = element('a', {
      href: hrefWith({ session: sessionId, request: request ?? null }),
      'data-session-link': sessionId,
    });
    link.append(element('span', { class: 'origin' }, originOf(labels)));
    link.append(element('span', { class: 'session-id' }, sessionId));
    return link;
  }

  function row(cells) {
    const tr = element('tr');
    for (const cell of cells) {
      const td = element('td');
      if (cell instanceof Node) td.append(cell);
      else td.textContent = String(cell);
      tr.append(td);
    }
    return tr;
  }

  window.Cachet = {
    fragment,
    api,
    element,
    setMetric,
    hrefWith,
    originOf,
    sessionLink,
    row,
    formatTokens: (value) => integer.format(value),
    formatPercent: (value) => `${(value * 100).toFixed(1)}%`,
    formatUsd,
    formatTime: (ms) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19),
    status: (text) => {
      document.getElementById('status').textContent = text;
    },
  };
})();
