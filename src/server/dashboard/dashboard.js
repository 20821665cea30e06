// Cachet dashboard: plain browser script over the JSON API, charts drawn with uPlot.
// The bearer token (when the server needs one) comes from the URL fragment: #token=...
(() => {
  const fragment = () => new URLSearchParams(location.hash.slice(1));
  const token = fragment().get('token');
  const statusLine = document.getElementById('status');
  let chart = null;

  const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  const formatTokens = (value) => integer.format(value);
  const formatPercent = (value) => `${(value * 100).toFixed(1)}%`;
  const formatUsd = (value) => `$${value.toFixed(4)}`;
  const formatTime = (ms) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

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

  function setMetric(name, value, formatted) {
    const cell = document.querySelector(`[data-metric="${name}"]`);
    cell.dataset.value = String(value);
    cell.textContent = formatted;
  }

  async function loadSessions() {
    const { sessions } = await api('/sessions');
    const list = document.getElementById('sessions');
    list.replaceChildren();
    for (const session of sessions) {
      const button = element('button', { type: 'button', 'data-session-id': session.sessionId });
      button.append(element('span', {}, session.sessionId));
      button.append(
        element(
          'small',
          {},
          `${session.model ?? 'unknown model'} · ${session.requests} requests · ${formatPercent(session.hitRate)} hit`,
        ),
      );
      button.addEventListener('click', () => selectSession(session.sessionId));
      const item = element('li');
      item.append(button);
      list.append(item);
    }
    statusLine.textContent = `${sessions.length} session${sessions.length === 1 ? '' : 's'}`;
    return sessions;
  }

  async function selectSession(sessionId) {
    const params = fragment();
    params.set('session', sessionId);
    history.replaceState(null, '', `#${params}`);
    for (const button of document.querySelectorAll('[data-session-id]')) {
      button.setAttribute('aria-current', String(button.dataset.sessionId === sessionId));
    }
    const encoded = encodeURIComponent(sessionId);
    const [{ requests }, report, sessions, agreement, planSavings] = await Promise.all([
      api(`/sessions/${encoded}/requests`),
      api(`/analytics/cache_effectiveness?session=${encoded}`),
      api('/sessions'),
      api(`/analytics/cause_agreement?session=${encoded}`),
      api(`/analytics/plan_savings?session=${encoded}`),
    ]);
    const summary = sessions.sessions.find((session) => session.sessionId === sessionId);
    const figures = report.sessions[0] ?? { ...report.overall, healthyWriteShareLimit: 1 };
    document.getElementById('session').hidden = false;
    document.getElementById('session-title').textContent = sessionId;
    document.getElementById('session-meta').textContent = summary
      ? `${summary.model ?? ''} ${summary.provider ? `via ${summary.provider}` : ''} ${summary.strategy ? `(${summary.strategy})` : ''} · ${formatTime(summary.firstAt)} → ${formatTime(summary.lastAt)} UTC`
      : '';
    const breakCount = requests.reduce((total, request) => total + request.breaks.length, 0);
    setMetric('requests', figures.requests, formatTokens(figures.requests));
    setMetric('hitRate', figures.hitRate, formatPercent(figures.hitRate));
    setMetric('cacheWriteShare', figures.cacheWriteShare, formatPercent(figures.cacheWriteShare));
    setMetric('healthyWriteShareLimit', figures.healthyWriteShareLimit, formatPercent(figures.healthyWriteShareLimit));
    setMetric('costUsd', figures.costUsd, formatUsd(figures.costUsd));
    setMetric('uncachedCostUsd', figures.uncachedCostUsd, formatUsd(figures.uncachedCostUsd));
    setMetric('savingsUsd', figures.savingsUsd, formatUsd(figures.savingsUsd));
    setMetric('breaks', breakCount, formatTokens(breakCount));
    renderBreaks(requests);
    renderAgreement(agreement);
    renderPlanSavings(planSavings);
    renderTable(requests);
    renderChart(requests);
    document.body.dataset.session = sessionId;
  }

  /** `system[1]` alone when the path already names its zone; `tools zone, tool_choice` otherwise. */
  function breakLocation(zone, path) {
    if (!path) return zone ?? '';
    if (!zone || path === zone || path.startsWith(`${zone}[`) || path.startsWith(`${zone}.`)) return path;
    return `${zone} zone, ${path}`;
  }

  function renderBreaks(requests) {
    const list = document.getElementById('breaks');
    list.replaceChildren();
    for (const request of requests) {
      for (const cacheBreak of request.breaks) {
        const where = breakLocation(cacheBreak.zone, cacheBreak.path);
        list.append(
          element(
            'li',
            { 'data-request': String(request.index + 1), 'data-cause': cacheBreak.cause },
            `request ${request.index + 1}: ${cacheBreak.cause}${where ? ` at ${where}` : ''}, ${formatTokens(cacheBreak.missedTokens)} tokens missed${cacheBreak.serverCause ? ` (provider: ${cacheBreak.serverCause.type})` : ''}`,
          ),
        );
      }
    }
    if (list.children.length === 0) list.append(element('li', { class: 'none' }, 'none'));
  }

  /** `cachet proxy --plan` sessions: the plan's modelled cost against the client's own markers; hidden elsewhere. */
  function renderPlanSavings(savings) {
    const section = document.getElementById('plan');
    section.hidden = savings.requests === 0;
    if (savings.requests === 0) return;
    setMetric('planClientCostUsd', savings.clientCostUsd, formatUsd(savings.clientCostUsd));
    setMetric('planPlannedCostUsd', savings.plannedCostUsd, formatUsd(savings.plannedCostUsd));
    setMetric(
      'planSavedUsd',
      savings.savedUsd,
      `${formatUsd(savings.savedUsd)}${savings.savedShare === null ? '' : ` (${formatPercent(savings.savedShare)})`}`,
    );
    setMetric('planClientReadShare', savings.clientReadShare ?? 0, formatPercent(savings.clientReadShare ?? 0));
    setMetric('planPlannedReadShare', savings.plannedReadShare ?? 0, formatPercent(savings.plannedReadShare ?? 0));
    document.getElementById('plan-requests').textContent =
      `${savings.requests} request${savings.requests === 1 ? '' : 's'} sent with Cachet's plan, both bodies judged by the cache model`;
  }

  /** Misses the provider diagnosed (Anthropic `diagnostics`): how often Cachet's cause agrees, and the pairs that do not. */
  function renderAgreement(agreement) {
    const line = document.getElementById('agreement');
    const list = document.getElementById('disagreements');
    list.replaceChildren();
    line.textContent =
      agreement.diagnosed === 0
        ? 'no provider diagnostics for this session'
        : `${agreement.agree} of ${agreement.diagnosed} diagnosed misses agree (${formatPercent(agreement.agreementRate)})`;
    line.dataset.agreementRate = agreement.agreementRate === null ? '' : String(agreement.agreementRate);
    for (const pair of agreement.disagreements) {
      list.append(
        element(
          'li',
          { 'data-cause': pair.cause, 'data-server-cause': pair.serverType },
          `Cachet: ${pair.cause} · provider: ${pair.serverType} · ${pair.count}×`,
        ),
      );
    }
  }

  function renderTable(requests) {
    const body = document.querySelector('#requests tbody');
    body.replaceChildren();
    for (const request of requests) {
      const row = element('tr', { 'data-index': String(request.index), class: request.breaks.length > 0 ? 'break' : '' });
      const cells = [
        ['index', request.index + 1, String(request.index + 1)],
        ['turnStep', `${request.turn}.${request.step}`, `${request.turn}.${request.step}`],
        ['model', request.model, request.model],
        ['cacheRead', request.tokens.cacheRead, formatTokens(request.tokens.cacheRead)],
        ['cacheWrite', request.tokens.cacheWrite, formatTokens(request.tokens.cacheWrite)],
        ['uncachedInput', request.tokens.uncachedInput, formatTokens(request.tokens.uncachedInput)],
        ['hitRate', request.hitRate, formatPercent(request.hitRate)],
        ['costUsd', request.costUsd, formatUsd(request.costUsd)],
        [
          'breaks',
          request.breaks.map((cacheBreak) => cacheBreak.cause).join(','),
          request.breaks.map((cacheBreak) => cacheBreak.cause).join(', '),
        ],
      ];
      for (const [name, value, text] of cells)
        row.append(element('td', { 'data-column': name, 'data-value': String(value) }, text));
      body.append(row);
    }
  }

  function renderChart(requests) {
    const container = document.getElementById('chart');
    chart?.destroy();
    container.replaceChildren();
    const x = requests.map((request) => request.index + 1);
    const read = requests.map((request) => request.tokens.cacheRead);
    const written = requests.map((request) => request.tokens.cacheWrite);
    const uncached = requests.map((request) => request.tokens.uncachedInput);
    const readAndWritten = read.map((value, index) => value + written[index]);
    const total = readAndWritten.map((value, index) => value + uncached[index]);
    const hitRate = requests.map((request) => request.hitRate * 100);
    const breaks = requests.filter((request) => request.breaks.length > 0);
    // uPlot does not stack: draw cumulative bars tallest first so each shorter one covers the one
    // below it, and show each bucket's own value in the legend.
    const bars = uPlot.paths.bars({ size: [0.6, 48] });
    const bucket = (label, color, raw) => ({
      label,
      scale: 'tokens',
      fill: color,
      stroke: color,
      paths: bars,
      points: { show: false },
      value: (_plot, _value, _series, index) => (index === null ? '–' : formatTokens(raw[index])),
    });
    const markBreaks = (plot) => {
      const context = plot.ctx;
      context.save();
      context.strokeStyle = '#cf1322';
      context.fillStyle = '#cf1322';
      context.setLineDash([5, 4]);
      context.lineWidth = 1.5 * devicePixelRatio;
      context.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
      for (const request of breaks) {
        const position = plot.valToPos(request.index + 1, 'x', true) - (plot.bbox.width / Math.max(requests.length, 1)) * 0.45;
        context.beginPath();
        context.moveTo(position, plot.bbox.top);
        context.lineTo(position, plot.bbox.top + plot.bbox.height);
        context.stroke();
        context.fillText(
          request.breaks.map((cacheBreak) => cacheBreak.cause).join(', '),
          position + 3,
          plot.bbox.top + 12 * devicePixelRatio,
        );
      }
      context.restore();
    };
    chart = new uPlot(
      {
        width: Math.max(480, container.clientWidth || 900),
        height: 320,
        scales: {
          x: { time: false, range: [0.5, requests.length + 0.5] },
          tokens: { range: (_plot, _min, max) => [0, Math.max(1, max) * 1.1] },
          pct: { range: [0, 100] },
        },
        axes: [
          { label: 'request', values: (_plot, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? String(tick) : '')) },
          { scale: 'tokens', label: 'input tokens', size: 70 },
          { scale: 'pct', side: 1, label: 'hit rate %', grid: { show: false } },
        ],
        series: [
          { label: 'request' },
          bucket('uncached', '#f5a623', uncached),
          bucket('written', '#4a90e2', written),
          bucket('read', '#2f9e44', read),
          {
            label: 'hit rate',
            scale: 'pct',
            stroke: '#1d2430',
            width: 2,
            value: (_plot, value) => (value === null ? '–' : `${value.toFixed(1)}%`),
          },
        ],
        hooks: { draw: [markBreaks] },
      },
      [x, total, readAndWritten, read, hitRate],
      container,
    );
  }

  loadSessions()
    .then((sessions) => {
      const wanted = fragment().get('session');
      const first = sessions.find((session) => session.sessionId === wanted) ?? sessions[0];
      if (first) return selectSession(first.sessionId);
      statusLine.textContent = 'No sessions recorded yet: run `npm run demo` or record events with recordEvents().';
    })
    .then(() => document.body.setAttribute('data-ready', 'true'))
    .catch((error) => {
      statusLine.textContent = `Error: ${error.message}`;
      document.body.setAttribute('data-ready', 'error');
    });
})();
