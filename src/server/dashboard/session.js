// One session's page: per-request buckets, breaks, the provider's diagnostics and --plan savings.
(() => {
  const { api, element, setMetric, originOf, formatTokens, formatPercent, formatUsd, formatTime } = window.Cachet;
  /** Beyond this many requests the buckets are drawn as stepped areas: bars would be under 2 px wide. */
  const MAX_BARS = 120;
  const LABEL_ROWS = 3;
  let chart = null;

  async function showSession(sessionId, params) {
    const encoded = encodeURIComponent(sessionId);
    const [{ requests }, report, summaries, agreement, planSavings] = await Promise.all([
      api(`/sessions/${encoded}/requests`),
      api(`/analytics/cache_effectiveness?session=${encoded}`),
      api(`/sessions?session=${encoded}`),
      api(`/analytics/cause_agreement?session=${encoded}`),
      api(`/analytics/plan_savings?session=${encoded}`),
    ]);
    const summary = summaries.sessions[0];
    const figures = report.sessions[0] ?? { ...report.overall, healthyWriteShareLimit: 1, healthy: true };
    document.getElementById('overview').hidden = true;
    document.getElementById('session').hidden = false;
    document.getElementById('session-title').textContent = `${summary ? originOf(summary) : 'unknown source'} — ${sessionId}`;
    document.getElementById('session-meta').textContent = summary
      ? [
          summary.model,
          summary.provider ? `via ${summary.provider}` : '',
          summary.run ? `run ${summary.run}` : '',
          `${formatTime(summary.firstAt)} → ${formatTime(summary.lastAt)} UTC`,
        ]
          .filter(Boolean)
          .join(' · ')
      : '';
    renderSummary(figures, requests);
    renderBreaks(requests);
    renderAgreement(agreement);
    renderPlanSavings(planSavings);
    renderTable(requests, params.get('request'));
    renderChart(requests);
    window.Cachet.status(`session ${sessionId}`);
    document.body.dataset.view = 'session';
    document.body.dataset.session = sessionId;
  }

  function renderSummary(figures, requests) {
    const root = document.getElementById('summary');
    const breakCount = requests.reduce((total, request) => total + request.breaks.length, 0);
    setMetric(root, 'requests', figures.requests, formatTokens(figures.requests));
    setMetric(root, 'hitRate', figures.hitRate, formatPercent(figures.hitRate));
    // Above 1/N the prefix was written more than once: warn beside the healthy limit.
    setMetric(
      root,
      'cacheWriteShare',
      figures.cacheWriteShare,
      formatPercent(figures.cacheWriteShare),
      figures.healthy ? null : 'warn',
    );
    setMetric(root, 'healthyWriteShareLimit', figures.healthyWriteShareLimit, formatPercent(figures.healthyWriteShareLimit));
    setMetric(root, 'costUsd', figures.costUsd, formatUsd(figures.costUsd));
    setMetric(root, 'uncachedCostUsd', figures.uncachedCostUsd, formatUsd(figures.uncachedCostUsd));
    const savings = setMetric(
      root,
      'savingsUsd',
      figures.savingsUsd,
      formatUsd(figures.savingsUsd),
      figures.savingsUsd < 0 ? 'warn' : null,
    );
    savings.title = figures.savingsUsd < 0 ? 'cache writes cost more than cache reads saved' : '';
    setMetric(root, 'breaks', breakCount, formatTokens(breakCount));
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
        const at = `request ${request.index + 1} (turn ${request.turn}.${request.step})`;
        list.append(
          element(
            'li',
            { 'data-request': String(request.index + 1), 'data-cause': cacheBreak.cause },
            `${at}: ${cacheBreak.cause}${where ? ` at ${where}` : ''}, ${formatTokens(cacheBreak.missedTokens)} tokens missed${cacheBreak.serverCause ? ` (provider: ${cacheBreak.serverCause.type})` : ''}`,
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
    setMetric(section, 'planClientCostUsd', savings.clientCostUsd, formatUsd(savings.clientCostUsd));
    setMetric(section, 'planPlannedCostUsd', savings.plannedCostUsd, formatUsd(savings.plannedCostUsd));
    setMetric(
      section,
      'planSavedUsd',
      savings.savedUsd,
      `${formatUsd(savings.savedUsd)}${savings.savedShare === null ? '' : ` (${formatPercent(savings.savedShare)})`}`,
      savings.savedUsd < 0 ? 'warn' : null,
    );
    setMetric(section, 'planClientReadShare', savings.clientReadShare ?? 0, formatPercent(savings.clientReadShare ?? 0));
    setMetric(section, 'planPlannedReadShare', savings.plannedReadShare ?? 0, formatPercent(savings.plannedReadShare ?? 0));
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

  function renderTable(requests, highlighted) {
    document.getElementById('turn-heading').textContent = 'Turn.step';
    const body = document.querySelector('#requests tbody');
    body.replaceChildren();
    for (const request of requests) {
      const turnStep = `${request.turn}.${request.step}`;
      const row = element('tr', { 'data-index': String(request.index), class: request.breaks.length > 0 ? 'break' : '' });
      const cells = [
        ['index', request.index + 1, String(request.index + 1)],
        ['turnStep', turnStep, turnStep],
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
      if (highlighted === turnStep) row.setAttribute('aria-current', 'true');
      body.append(row);
    }
    document.querySelector('#requests tr[aria-current="true"]')?.scrollIntoView({ block: 'center' });
  }

  /**
   * Break labels as HTML over the chart, placed left to right in up to three rows: a label goes
   * in the first row where it does not touch the one before; when no row has room it is left out
   * (its dashed line stays, and every break is listed under the chart). Labels never overlap.
   */
  function placeBreakLabels(plot, breaks) {
    const layer = document.getElementById('break-labels');
    layer.replaceChildren();
    const rowEnds = new Array(LABEL_ROWS).fill(Number.NEGATIVE_INFINITY);
    const left = plot.over.offsetLeft;
    const top = plot.over.offsetTop;
    let hidden = 0;
    for (const request of breaks) {
      const x = left + plot.valToPos(request.index + 1, 'x');
      const label = element('span', { class: 'break-label', 'data-request': String(request.index + 1) });
      label.textContent = request.breaks.map((cacheBreak) => cacheBreak.cause).join(', ');
      layer.append(label);
      const width = label.offsetWidth;
      const rowIndex = rowEnds.findIndex((end) => x >= end + 4);
      if (rowIndex === -1 || x + width > left + plot.over.offsetWidth) {
        label.remove();
        hidden++;
        continue;
      }
      label.style.left = `${x + 2}px`;
      label.style.top = `${top + 2 + rowIndex * (label.offsetHeight + 2)}px`;
      rowEnds[rowIndex] = x + 2 + width;
    }
    layer.dataset.hidden = String(hidden);
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
    // uPlot does not stack: draw cumulative buckets tallest first so each shorter one covers the one
    // below it, and show each bucket's own value in the legend. Many requests: stepped areas, not bars.
    const paths = requests.length > MAX_BARS ? uPlot.paths.stepped({ align: 0 }) : uPlot.paths.bars({ size: [0.7, 48] });
    const bucket = (label, color, raw) => ({
      label,
      scale: 'tokens',
      fill: color,
      stroke: color,
      paths,
      points: { show: false },
      value: (_plot, _value, _series, index) => (index === null ? '–' : formatTokens(raw[index])),
    });
    const markBreaks = (plot) => {
      const context = plot.ctx;
      context.save();
      context.strokeStyle = '#cf1322';
      context.setLineDash([5, 4]);
      // Whole device pixels keep the dashes crisp (and red, not blended) at any count.
      const lineWidth = Math.max(1, Math.round((breaks.length > 40 ? 1 : 2) * devicePixelRatio));
      context.lineWidth = lineWidth;
      const half = (plot.bbox.width / Math.max(requests.length, 1)) * 0.5;
      for (const request of breaks) {
        const position = Math.round(plot.valToPos(request.index + 1, 'x', true) - half) + (lineWidth % 2) / 2;
        context.beginPath();
        context.moveTo(position, plot.bbox.top);
        context.lineTo(position, plot.bbox.top + plot.bbox.height);
        context.stroke();
      }
      context.restore();
    };
    chart = new uPlot(
      {
        width: Math.max(300, container.clientWidth || 900),
        height: 320,
        scales: {
          x: { time: false, range: [0.5, requests.length + 0.5] },
          tokens: { range: (_plot, _min, max) => [0, Math.max(1, max) * 1.25] },
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
            width: requests.length > MAX_BARS ? 1 : 2,
            points: { show: requests.length <= MAX_BARS },
            value: (_plot, value) => (value === null ? '–' : `${value.toFixed(1)}%`),
          },
        ],
        hooks: { draw: [markBreaks, (plot) => placeBreakLabels(plot, breaks)] },
      },
      [x, total, readAndWritten, read, hitRate],
      container,
    );
  }

  window.Cachet.showSession = showSession;
})();
