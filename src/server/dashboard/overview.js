// The overview across sessions (the landing page): filters in the URL fragment, every figure
// from /analytics/overview and /analytics/session_list (the store sums in SQL).
(() => {
  const { api, element, setMetric, hrefWith, sessionLink, row, formatTokens, formatPercent, formatUsd, formatTime } =
    window.Cachet;
  const FILTERS = ['source', 'provider', 'model', 'strategy', 'run', 'workload', 'project'];
  const PAGE = 25;
  let chart = null;

  /** The overview's query string from the fragment's filter keys. */
  function queryOf(params, extra = {}) {
    const query = new URLSearchParams();
    for (const name of [...FILTERS, 'from', 'to', 'bucket']) {
      const value = params.get(name);
      if (value) query.set(name, name === 'from' || name === 'to' ? new Date(`${value}Z`).toISOString() : value);
    }
    for (const [name, value] of Object.entries(extra)) if (value !== undefined && value !== null) query.set(name, String(value));
    return query.toString();
  }

  function fillFilters(form, params, facets) {
    for (const name of FILTERS) {
      const select = form.elements.namedItem(name);
      const chosen = params.get(name) ?? '';
      const values = facets[name] ?? [];
      select.replaceChildren(element('option', { value: '' }, 'all'));
      for (const value of chosen && !values.includes(chosen) ? [chosen, ...values] : values) {
        select.append(element('option', { value }, value));
      }
      select.value = chosen;
      select.disabled = values.length === 0 && !chosen;
    }
    for (const name of ['from', 'to', 'bucket']) form.elements.namedItem(name).value = params.get(name) ?? '';
    form.onchange = () => {
      const changes = { offset: null };
      for (const name of [...FILTERS, 'from', 'to', 'bucket']) changes[name] = form.elements.namedItem(name).value || null;
      location.hash = hrefWith(changes);
    };
  }

  function renderTotals(totals) {
    const root = document.getElementById('totals');
    setMetric(root, 'costUsd', totals.costUsd, formatUsd(totals.costUsd));
    setMetric(root, 'uncachedCostUsd', totals.uncachedCostUsd, formatUsd(totals.uncachedCostUsd));
    setMetric(root, 'savingsUsd', totals.savingsUsd, formatUsd(totals.savingsUsd), totals.savingsUsd < 0 ? 'warn' : null);
    setMetric(root, 'hitRate', totals.hitRate, formatPercent(totals.hitRate));
    setMetric(root, 'cacheWriteShare', totals.cacheWriteShare, formatPercent(totals.cacheWriteShare));
    setMetric(root, 'requests', totals.requests, formatTokens(totals.requests));
  }

  function renderSeries(report) {
    const container = document.getElementById('series-chart');
    chart?.destroy();
    container.replaceChildren();
    const points = report.series;
    document.getElementById('series-caption').textContent =
      `Per ${report.bucket} (UTC): spend and spend without cache (left axis), hit rate and write share (right axis).`;
    if (points.length === 0) {
      container.append(element('p', { class: 'note' }, 'No requests match these filters.'));
      return;
    }
    const usd = (value) => (value === null ? '–' : formatUsd(value));
    const pct = (value) => (value === null ? '–' : `${value.toFixed(1)}%`);
    chart = new uPlot(
      {
        width: Math.max(320, container.clientWidth || 800),
        height: 260,
        scales: { x: { time: true }, usd: {}, pct: { range: [0, 100] } },
        axes: [
          {},
          { scale: 'usd', values: (_plot, ticks) => ticks.map((tick) => `$${tick}`), size: 70 },
          { scale: 'pct', side: 1, grid: { show: false } },
        ],
        series: [
          { label: report.bucket },
          { label: 'spend', scale: 'usd', stroke: '#1d4ed8', width: 2, value: (_plot, value) => usd(value) },
          {
            label: 'without cache',
            scale: 'usd',
            stroke: '#9aa4b2',
            width: 2,
            dash: [6, 4],
            value: (_plot, value) => usd(value),
          },
          { label: 'hit rate', scale: 'pct', stroke: '#2f9e44', width: 2, value: (_plot, value) => pct(value) },
          { label: 'write share', scale: 'pct', stroke: '#d97706', width: 2, value: (_plot, value) => pct(value) },
        ],
      },
      [
        points.map((point) => point.at / 1000),
        points.map((point) => point.costUsd),
        points.map((point) => point.uncachedCostUsd),
        points.map((point) => point.hitRate * 100),
        points.map((point) => point.cacheWriteShare * 100),
      ],
      container,
    );
  }

  function renderCauses(report) {
    const body = document.querySelector('#causes tbody');
    body.replaceChildren();
    for (const cause of report.causes) {
      const examples = element('span', { class: 'examples' });
      for (const example of cause.examples) {
        const link = element(
          'a',
          {
            href: hrefWith({ session: example.sessionId, request: `${example.turn}.${example.step}` }),
            'data-example': cause.cause,
          },
          `${example.sessionId} @ ${example.turn}.${example.step}`,
        );
        examples.append(link);
      }
      const tr = row([
        cause.cause,
        formatTokens(cause.breaks),
        formatTokens(cause.missedTokens),
        formatUsd(cause.lostUsd),
        examples,
      ]);
      tr.dataset.cause = cause.cause;
      tr.dataset.lostUsd = String(cause.lostUsd);
      body.append(tr);
    }
    if (report.causes.length === 0) body.append(row(['no cache breaks', '', '', '', '']));
    const unpriced = document.getElementById('unpriced');
    unpriced.hidden = report.unpricedModels.length === 0;
    unpriced.textContent = `No price for ${report.unpricedModels.join(', ')}: their breaks count as $0 lost.`;
  }

  function renderWorst(report) {
    const body = document.querySelector('#worst tbody');
    body.replaceChildren();
    for (const session of report.worstSessions) {
      body.append(row([sessionLink(session.sessionId, session), formatTokens(session.breaks), formatUsd(session.lostUsd)]));
    }
    if (report.worstSessions.length === 0) body.append(row(['no cache breaks', '', '']));
  }

  function renderRegret(report) {
    const section = document.getElementById('regret');
    section.hidden = report.regret.best.length === 0;
    for (const [id, list] of [
      ['regret-best', report.regret.best],
      ['regret-worst', report.regret.worst],
    ]) {
      const body = document.querySelector(`#${id} tbody`);
      body.replaceChildren();
      for (const entry of list) {
        body.append(
          row([
            sessionLink(entry.sessionId, entry),
            formatUsd(entry.costUsd),
            formatUsd(entry.oracleCostUsd),
            `+${formatPercent(entry.regret)}`,
          ]),
        );
      }
    }
  }

  function renderList(page, params) {
    const controls = document.getElementById('list-controls');
    controls.elements.namedItem('group').value = page.groupBy;
    controls.elements.namedItem('sort').value = page.sort;
    controls.onchange = () => {
      location.hash = hrefWith({
        group: controls.elements.namedItem('group').value,
        sort: controls.elements.namedItem('sort').value,
        offset: null,
      });
    };
    const groups = document.getElementById('groups');
    groups.replaceChildren();
    const filterName = page.groupBy === 'client' ? null : page.groupBy;
    for (const group of page.groups) {
      const text = `${group.key ?? 'none'} — ${group.sessions} sessions · ${formatUsd(group.costUsd)} · ${formatPercent(group.hitRate)} hit · ${formatUsd(group.lostUsd)} lost`;
      const item = element('li', { 'data-group': group.key ?? '' });
      const active = filterName && params.get(filterName) === group.key;
      if (group.key !== null && filterName && !active)
        item.append(element('a', { href: hrefWith({ [filterName]: group.key, offset: null }) }, text));
      else item.append(element('span', active ? { 'aria-current': 'true' } : {}, text));
      groups.append(item);
    }
    const body = document.querySelector('#session-list tbody');
    body.replaceChildren();
    for (const session of page.sessions) {
      const tr = row([
        sessionLink(session.sessionId, session),
        session.source ?? 'unknown',
        session.model ?? '',
        formatTokens(session.requests),
        formatPercent(session.hitRate),
        formatUsd(session.costUsd),
        formatUsd(session.lostUsd),
        session.regret === null ? '—' : `+${formatPercent(session.regret)}`,
      ]);
      tr.dataset.sessionId = session.sessionId;
      tr.title = `${formatTime(session.firstAt)} → ${formatTime(session.lastAt)} UTC`;
      body.append(tr);
    }
    const last = Math.min(page.offset + page.limit, page.total);
    document.getElementById('page').textContent = `${page.total === 0 ? 0 : page.offset + 1}–${last} of ${page.total} sessions`;
    const previous = document.getElementById('previous');
    const next = document.getElementById('next');
    previous.disabled = page.offset === 0;
    next.disabled = last >= page.total;
    previous.onclick = () => {
      location.hash = hrefWith({ offset: Math.max(0, page.offset - page.limit) || null });
    };
    next.onclick = () => {
      location.hash = hrefWith({ offset: page.offset + page.limit });
    };
  }

  async function showOverview(params) {
    const group = params.get('group') ?? 'run';
    const sort = params.get('sort') ?? 'recent';
    const [report, page] = await Promise.all([
      api(`/analytics/overview?${queryOf(params)}`),
      api(`/analytics/session_list?${queryOf(params, { group, sort, limit: PAGE, offset: params.get('offset') ?? 0 })}`),
    ]);
    document.getElementById('session').hidden = true;
    document.getElementById('overview').hidden = false;
    fillFilters(document.getElementById('filters'), params, report.facets);
    renderTotals(report.totals);
    renderSeries(report);
    renderCauses(report);
    renderWorst(report);
    renderRegret(report);
    renderList(page, params);
    window.Cachet.status(
      `${page.total} session${page.total === 1 ? '' : 's'} · ${formatTokens(report.totals.requests)} requests`,
    );
    document.body.dataset.view = 'overview';
  }

  window.Cachet.showOverview = showOverview;
})();
